import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback, addressed as `localhost`, with per-path behaviour. */
export interface Receiver {
  url(path: string): string;
  requests(path: string): ReceivedRequest[];
  /** Delivery ids answered 2xx: what a receiver that dedupes would count. */
  succeeded(path: string): Set<string>;
  failFirst(path: string, times: number): void;
  redirect(path: string, location: string): void;
  /** Requests to `path` get no answer (until `answer` or stop). */
  hang(path: string): void;
  /** Later requests to `path` are answered again. */
  answer(path: string): void;
  stop(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received = new Map<string, ReceivedRequest[]>();
  const succeeded = new Map<string, Set<string>>();
  const failures = new Map<string, number>();
  const redirects = new Map<string, string>();
  const hanging = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const list = received.get(path) ?? [];
      list.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      received.set(path, list);
      if (hanging.has(path)) return;
      const location = redirects.get(path);
      if (location) return void res.writeHead(307, { location }).end();
      const left = failures.get(path) ?? 0;
      if (left > 0) {
        failures.set(path, left - 1);
        return void res.writeHead(500).end('not now');
      }
      const ids = succeeded.get(path) ?? new Set<string>();
      ids.add(String(req.headers['vus-webhook-id']));
      succeeded.set(path, ids);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: (path) => `http://localhost:${bound}${path}`,
    requests: (path) => received.get(path) ?? [],
    succeeded: (path) => succeeded.get(path) ?? new Set(),
    failFirst: (path, times) => void failures.set(path, times),
    redirect: (path, location) => void redirects.set(path, location),
    hang: (path) => void hanging.add(path),
    answer: (path) => void hanging.delete(path),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';

export interface FileServerRequest {
  method: string;
  path: string;
  range?: string;
}

export interface FileServer {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** The URL of a served name (`url('a.mp4')`). */
  url(name: string): string;
  /** Every request received, in order (to assert that a download happened, or was retried). */
  requests: FileServerRequest[];
  close(): Promise<void>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.mp4': 'video/mp4',
  '.mkv': 'video/x-matroska',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.srt': 'application/x-subrip',
  '.vtt': 'text/vtt',
  '.txt': 'text/plain',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
};

/**
 * A loopback HTTP server for "upload by URL" tests: serves exactly the given files (name → path;
 * nothing else, so no traversal), with Content-Length, HEAD and single byte ranges. Unknown names
 * get 404.
 *
 * ```ts
 * const server = await serveFiles({ 'clip.mp4': video.path });
 * await createTask({ video_url: server.url('clip.mp4') });
 * await server.close();
 * ```
 */
export async function serveFiles(files: Readonly<Record<string, string>>): Promise<FileServer> {
  const requests: FileServerRequest[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push({ method: req.method ?? 'GET', path, ...(req.headers.range ? { range: req.headers.range } : {}) });
    handle(files, path.replace(/^\//, ''), req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    url: (name) => `${baseUrl}/${encodeURIComponent(name)}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function handle(files: Readonly<Record<string, string>>, name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const file = Object.hasOwn(files, name) ? files[name] : undefined;
  if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
    res.writeHead(file ? 405 : 404, { 'content-type': 'text/plain' }).end(file ? 'method not allowed' : 'not found');
    return;
  }
  const { size } = await stat(file);
  const type = CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
  const range = parseRange(req.headers.range, size);
  if (range === 'invalid') {
    res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
    return;
  }
  const [start, end] = range ?? [0, size - 1];
  res.writeHead(range ? 206 : 200, {
    'content-type': type,
    'content-length': String(end - start + 1),
    'accept-ranges': 'bytes',
    ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  createReadStream(file, { start, end }).pipe(res);
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` → inclusive [start, end]; undefined when absent. */
function parseRange(header: string | undefined, size: number): [number, number] | 'invalid' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (!m[1] && !m[2])) return 'invalid';
  const start = m[1] ? Number(m[1]) : Math.max(0, size - Number(m[2]));
  const end = m[1] && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
  return start <= end && start < size ? [start, end] : 'invalid';
}

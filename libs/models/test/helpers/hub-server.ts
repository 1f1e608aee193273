import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';

/**
 * A local stand-in for the Hugging Face hub, serving a folder laid out `<root>/<owner>/<name>/…`
 * the way the hub does: `GET /api/models/<id>/tree/<rev>?recursive=true` (paths, sizes, the git blob
 * id of small files and the sha256 of `.onnx` files as LFS pointers) and
 * `GET /<id>/resolve/<rev>/<path>` with Range requests. `breakAfter` cuts the next download of a
 * file after that many bytes, once, to exercise resuming.
 */
export interface HubServer {
  readonly url: string;
  /** Requests seen, as `METHOD path range?`. */
  readonly requests: string[];
  breakAfter(file: string, bytes: number): void;
  close(): Promise<void>;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

async function listing(folder: string): Promise<unknown[]> {
  return Promise.all(
    (await filesUnder(folder)).map(async (path) => {
      const content = await readFile(join(folder, path));
      const gitOid = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
      const lfs = path.endsWith('.onnx') ? { lfs: { oid: createHash('sha256').update(content).digest('hex'), size: content.length } } : {};
      return { type: 'file', path, size: content.length, oid: gitOid, ...lfs };
    }),
  );
}

export async function startHubServer(root: string): Promise<HubServer> {
  const requests: string[] = [];
  const breaks = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://hub');
      requests.push(`${req.method} ${url.pathname}${req.headers.range ? ` ${req.headers.range}` : ''}`);
      const tree = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/[^/]+$/.exec(url.pathname);
      if (tree) {
        const folder = join(root, tree[1]!);
        if (!(await stat(folder).catch(() => undefined))) return void res.writeHead(404).end('{"error":"Repository not found"}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await listing(folder)));
        return;
      }
      const resolve = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(url.pathname);
      const file = resolve ? join(root, resolve[1]!, decodeURIComponent(resolve[2]!)) : undefined;
      const size = file ? (await stat(file).catch(() => undefined))?.size : undefined;
      if (!resolve || !file || size === undefined || file.includes('..')) return void res.writeHead(404).end('Entry not found');
      if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': size }).end();
      const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const start = range ? Number(range[1]) : 0;
      if (start >= size && size > 0) return void res.writeHead(416).end();
      res.writeHead(range ? 206 : 200, { 'content-length': size - start, 'accept-ranges': 'bytes' });
      const cut = breaks.get(resolve[2]!);
      if (cut !== undefined) {
        // Send `cut` bytes, then drop the connection as a flaky network would.
        breaks.delete(resolve[2]!);
        const head = (await readFile(file)).subarray(start, start + cut);
        res.write(head, () => setTimeout(() => res.destroy(), 50));
        return;
      }
      createReadStream(file, { start }).pipe(res);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    breakAfter: (path, bytes) => breaks.set(path, bytes),
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

import {
  AddressGuard,
  allowListOfHosts,
  HttpTimeout,
  send,
  SsrfRefused,
  TooManyRedirects,
  type OutboundRequest,
  type Resolver,
} from '@vus/fetch';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';

describe('the outbound HTTP client', () => {
  let server: Server;
  let silent: TcpServer;
  const silentSockets = new Set<Socket>();
  let base: string;
  let silentPort: number;
  /** Requests seen per path, and the bodies posted. */
  const hits = new Map<string, number>();
  const posted: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '';
      const hit = (hits.get(path) ?? 0) + 1;
      hits.set(path, hit);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method === 'POST') posted.push(`${path} ${Buffer.concat(chunks).toString()}`);
        if (path === '/ok') return res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
        if (path === '/moved') return res.writeHead(307, { location: '/ok' }).end();
        if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end();
        if (path === '/to-ftp') return res.writeHead(302, { location: 'ftp://127.0.0.1/x' }).end();
        if (path === '/to-loopback')
          return res.writeHead(302, { location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ok` }).end();
        if (path.startsWith('/busy-twice')) return hit <= 2 ? res.writeHead(503).end() : res.writeHead(200).end('done');
        if (path === '/busy') return res.writeHead(503).end();
        if (path === '/no-headers') return; // never answers
        if (path === '/stall') return res.writeHead(200).write('x');
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Accepts connections and never speaks: a TLS handshake to it cannot finish.
    silent = createTcpServer((socket) => {
      silentSockets.add(socket);
      socket.on('close', () => silentSockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    for (const socket of silentSockets) socket.destroy();
    await Promise.all([new Promise((resolve) => server.close(resolve)), new Promise((resolve) => silent.close(resolve))]);
  });

  const deadlines = { connectMs: 2_000, idleMs: 2_000 };
  const allowLoopback = new AddressGuard(allowListOfHosts(['127.0.0.1']));
  const get = (path: string, overrides: Partial<OutboundRequest> = {}) =>
    send({ url: new URL(path, base), deadlines, guard: allowLoopback, ...overrides });
  const failure = async (promise: Promise<unknown>): Promise<unknown> => {
    try {
      await promise;
    } catch (error) {
      return error;
    }
    throw new Error('expected a failure');
  };
  const text = async (response: Awaited<ReturnType<typeof send>>) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of response.body) chunks.push(chunk as Buffer);
    } catch (error) {
      throw response.explain(error);
    }
    return Buffer.concat(chunks).toString();
  };

  it('answers with the status, headers and body', async () => {
    const response = await get('/ok');
    expect([response.status, response.headers['content-type'], await text(response)]).toEqual([200, 'text/plain', 'hello']);
  });

  it('does not follow redirects unless asked: a redirect is the answer', async () => {
    const response = await get('/moved');
    response.body.destroy();
    expect([response.status, response.headers.location]).toEqual([307, '/ok']);
  });

  it('follows redirects, sending a POST body again to the new location', async () => {
    posted.length = 0;
    const response = await get('/moved', {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
      redirects: { max: 3 },
    });
    expect([response.status, response.url.pathname, await text(response)]).toEqual([200, '/ok', 'hello']);
    expect(posted).toEqual(['/moved {"a":1}', '/ok {"a":1}']);
  });

  it('stops after the most redirects it follows, with the last status', async () => {
    const error = await failure(get('/loop', { redirects: { max: 3 } }));
    expect(error).toBeInstanceOf(TooManyRedirects);
    expect(error).toMatchObject({ status: 302, message: 'more than 3 redirects' });
  });

  it("checks each redirect's location before requesting it", async () => {
    const refuse = (url: URL) => {
      if (url.protocol !== 'http:') throw new Error(`scheme ${url.protocol}`);
      return url;
    };
    expect(await failure(get('/to-ftp', { redirects: { max: 3, check: refuse } }))).toEqual(new Error('scheme ftp:'));
  });

  describe('the SSRF guard', () => {
    const fakeDns =
      (answers: Record<string, string>): Resolver =>
      async (hostname) => {
        const address = answers[hostname];
        if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return [{ address, family: address.includes(':') ? 6 : 4 }];
      };
    const port = () => new URL(base).port;

    it('refuses a literal address outside the allow list before connecting', async () => {
      const error = await failure(get('/ok', { guard: new AddressGuard() }));
      expect(error).toBeInstanceOf(SsrfRefused);
      expect((error as Error).message).toBe('refused: 127.0.0.1 is a loopback address');
    });

    it('refuses a name that resolves to a forbidden address, at connect time', async () => {
      const guard = new AddressGuard(undefined, fakeDns({ 'inside.test': '127.0.0.1' }));
      const error = await failure(send({ url: new URL(`http://inside.test:${port()}/ok`), deadlines, guard }));
      expect(error).toBeInstanceOf(SsrfRefused);
      expect(error).toMatchObject({ hostname: 'inside.test', address: '127.0.0.1' });
    });

    it('connects to an allow-listed name through the guard', async () => {
      const guard = new AddressGuard(allowListOfHosts(['inside.test']), fakeDns({ 'inside.test': '127.0.0.1' }));
      const response = await send({ url: new URL(`http://inside.test:${port()}/ok`), deadlines, guard });
      expect(await text(response)).toBe('hello');
    });

    it('checks every redirect hop', async () => {
      const guard = new AddressGuard(allowListOfHosts(['localhost']), fakeDns({ localhost: '127.0.0.1' }));
      const error = await failure(
        send({ url: new URL(`http://localhost:${port()}/to-loopback`), deadlines, guard, redirects: { max: 3 } }),
      );
      expect(error).toBeInstanceOf(SsrfRefused);
    });

    it('without a guard (an operator-chosen URL) connects anywhere', async () => {
      expect((await send({ url: new URL('/ok', base), deadlines })).status).toBe(200);
    });
  });

  describe('deadlines', () => {
    it.each([
      [
        'connect',
        () => send({ url: new URL(`https://127.0.0.1:${silentPort}/`), deadlines: { connectMs: 100, idleMs: 5_000 } }),
        'no answer within 100 ms (connect)',
      ],
      ['headers', () => get('/no-headers', { deadlines: { connectMs: 2_000, idleMs: 100 } }), 'no answer within 100 ms (headers)'],
      [
        'overall',
        () => get('/no-headers', { deadlines: { connectMs: 2_000, idleMs: 5_000, overallMs: 100 } }),
        'no answer within 100 ms (overall)',
      ],
    ])('%s: an HttpTimeout naming it', async (phase, request, message) => {
      const error = await failure(request());
      expect(error).toBeInstanceOf(HttpTimeout);
      expect(error).toMatchObject({ phase, message });
    });

    it.each([
      ['body', { connectMs: 2_000, idleMs: 100 }, 'the body stalled for 100 ms (body)'],
      ['overall', { connectMs: 2_000, idleMs: 5_000, overallMs: 200 }, 'no answer within 200 ms (overall)'],
    ])('%s, while the body is read', async (phase, limits, message) => {
      const response = await get('/stall', { deadlines: limits });
      const error = await failure(text(response));
      expect(error).toMatchObject({ phase, message });
    });

    it("the caller's abort is not a timeout", async () => {
      const controller = new AbortController();
      const pending = get('/no-headers', { signal: controller.signal, deadlines: { connectMs: 2_000, idleMs: 5_000, overallMs: 5_000 } });
      controller.abort();
      expect(await failure(pending)).not.toBeInstanceOf(HttpTimeout);
    });
  });

  describe('retries', () => {
    const retry = { attempts: 3, baseMs: 1, maxMs: 4 };

    it('retries a GET that found the server busy, and answers with the first success', async () => {
      const response = await get('/busy-twice-get', { retry });
      expect([response.status, await text(response), hits.get('/busy-twice-get')]).toEqual([200, 'done', 3]);
    });

    it('answers with the last busy response once the attempts are spent', async () => {
      hits.delete('/busy');
      const response = await get('/busy', { retry });
      response.body.destroy();
      expect([response.status, hits.get('/busy')]).toEqual([503, 3]);
    });

    it('does not retry a POST unless told the receiver tolerates a repeat', async () => {
      const once = await get('/busy-twice-post', { method: 'POST', body: 'x', retry });
      once.body.destroy();
      const again = await get('/busy-twice-post2', { method: 'POST', body: 'x', retry, retryUnsafe: true });
      again.body.destroy();
      expect([once.status, hits.get('/busy-twice-post'), again.status, hits.get('/busy-twice-post2')]).toEqual([503, 1, 200, 3]);
    });

    it('retries a refused connection, then fails with its error', async () => {
      const closed = createTcpServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const tried: number[] = [];
      const error = await failure(
        send({ url: new URL(`http://127.0.0.1:${port}/`), deadlines, retry, random: () => (tried.push(1), 0.5) }),
      );
      expect([(error as NodeJS.ErrnoException).code, tried.length]).toEqual(['ECONNREFUSED', 2]);
    });

    it('never retries a refused destination', async () => {
      const tried: number[] = [];
      const error = await failure(get('/ok', { guard: new AddressGuard(), retry, random: () => (tried.push(1), 0.5) }));
      expect([error instanceof SsrfRefused, tried.length]).toEqual([true, 0]);
    });
  });
});

/**
 * A server that closes the connection after its answer, read by a caller that starts late: when the
 * body's last bytes fill the reader's buffer, undici's parser is paused as the connection ends.
 * Undici 7 failed an assertion there, in a socket handler no caller can catch, and the process
 * died (nodejs/undici#5360, fixed in 8.x, which needs Node 22.19): patches/undici+7.30.2.patch.
 */
describe('a connection that ends while the body waits for its reader', () => {
  let server: TcpServer;
  let base: string;

  beforeAll(async () => {
    server = createTcpServer((socket) => {
      socket.once('data', (request) => {
        const [, path = ''] = /^GET (\S+)/.exec(request.toString()) ?? [];
        const [, framing = '', size = '0'] = path.split('/');
        const body = Buffer.alloc(Number(size), 'v');
        const head: Record<string, string> = {
          length: `Content-Length: ${body.length}\r\n`,
          eof: '',
          truncated: `Content-Length: ${body.length + 10}\r\n`,
        };
        socket.write(`HTTP/1.1 200 OK\r\n${head[framing] ?? ''}Connection: close\r\n\r\n`);
        socket.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** Reads the body once it has all arrived: what was read, or the error that ended the reading. */
  const readLate = async (path: string): Promise<number | string> => {
    const response = await send({ url: new URL(path, base), deadlines: { connectMs: 2_000, idleMs: 5_000 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    let read = 0;
    try {
      for await (const chunk of response.body) read += (chunk as Buffer).length;
      return read;
    } catch (error) {
      return (response.explain(error) as { code?: string }).code ?? String(error);
    }
  };

  // Around the reader's 64 KiB buffer, where the pause falls on the body's last bytes.
  const sizes = [1_000, 65_536, 65_537, 100_000, 300_000];
  it.each(sizes)('a body of %i bytes with a length arrives whole', async (size) => {
    expect(await readLate(`/length/${size}`)).toBe(size);
  });
  it.each(sizes)('a body of %i bytes that lasts until the connection ends arrives whole', async (size) => {
    expect(await readLate(`/eof/${size}`)).toBe(size);
  });
  it.each(sizes)('a body of %i bytes cut short of its length is an error, not a whole body', async (size) => {
    expect(await readLate(`/truncated/${size}`)).toBe('UND_ERR_RES_CONTENT_LENGTH_MISMATCH');
  });
});

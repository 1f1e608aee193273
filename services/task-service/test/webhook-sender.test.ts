import { AddressGuard, allowListOfHosts } from '@vus/fetch';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../src/webhooks/sender';

/** What one delivery attempt reports for each kind of receiver (the dispatcher records it as is). */
describe('postWebhook', () => {
  let server: Server;
  let base: string;
  const received: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(`${req.url} ${req.headers['content-type']} ${Buffer.concat(chunks).toString()}`);
        if (req.url === '/ok') return res.writeHead(204).end();
        if (req.url === '/big') return res.writeHead(200).end(Buffer.alloc(200 * 1024, 65));
        if (req.url === '/moved') return res.writeHead(308, { location: '/ok' }).end();
        if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
        if (req.url === '/to-ftp') return res.writeHead(302, { location: 'ftp://127.0.0.1/x' }).end();
        if (req.url === '/slow') return; // never answers
        res.writeHead(500).end('boom');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const guard = new AddressGuard(allowListOfHosts(['127.0.0.1']));
  const post = (path: string, timeoutMs = 2_000) => postWebhook(guard, `${base}${path}`, '{"id":1}', { 'x-signature': 's' }, timeoutMs);

  it.each([
    ['a 2xx answer', '/ok', { status: 204 }],
    ['a large answer, read only in part', '/big', { status: 200 }],
    ['a redirect, followed with the same body', '/moved', { status: 204 }],
    ['another answer', '/fail', { status: 500, error: 'the receiver answered 500' }],
    ['a redirect loop', '/loop', { status: 302, error: 'more than 3 redirects' }],
    [
      'a redirect to another scheme',
      '/to-ftp',
      { status: 0, error: 'refused: The url parameter is invalid. The scheme ftp: is not allowed; use http or https.', refused: true },
    ],
    ['no answer in time', '/slow', { status: 0, error: 'no answer within 300 ms' }],
  ])('%s', async (_name, path, expected) => {
    expect(await post(path, path === '/slow' ? 300 : 2_000)).toEqual(expected);
  });

  it('posts the body as JSON to every hop', async () => {
    received.length = 0;
    await post('/moved');
    expect(received).toEqual(['/moved application/json {"id":1}', '/ok application/json {"id":1}']);
  });

  it('refuses a destination outside the rules, for good', async () => {
    expect(await postWebhook(new AddressGuard(), `${base}/ok`, '{}', {}, 2_000)).toEqual({
      status: 0,
      error: 'refused: 127.0.0.1 is a loopback address',
      refused: true,
    });
  });
});

import { isApiError } from '@vus/core';
import { checkFetchableUrl, DEFAULT_FETCH_POLICY, fetchBytes, fetchText, openUrl, type FetchPolicy } from '@vus/fetch';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

describe('fetching a user URL', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok.srt') return res.end('1\n00:00:01,000 --> 00:00:02,000\nHello\n');
      if (req.url === '/image.png') return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
      if (req.url === '/redirect-out') return res.writeHead(302, { location: 'http://localhost:' + port + '/ok.srt' }).end();
      if (req.url === '/redirect-in') return res.writeHead(302, { location: '/ok.srt' }).end();
      if (req.url === '/redirect-ftp') return res.writeHead(302, { location: 'ftp://127.0.0.1/x' }).end();
      if (req.url === '/big') return res.end(Buffer.alloc(4096, 65));
      if (req.url === '/big-chunked') {
        // No content-length: only counting the body can stop it.
        res.writeHead(200, { 'transfer-encoding': 'chunked' });
        for (let i = 0; i < 8; i++) res.write(Buffer.alloc(512, 66));
        return res.end();
      }
      if (req.url === '/stall') return res.writeHead(200).write('x');
      if (req.url === '/trickle') {
        // A byte at a time, never idle long enough for the idle timeout: forever, unless stopped.
        res.writeHead(200, { 'content-type': 'video/mp4' });
        const timer = setInterval(() => res.write('x'), 20);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const policy = (overrides: Partial<FetchPolicy> = {}): FetchPolicy => ({
    ...DEFAULT_FETCH_POLICY,
    allowHosts: ['127.0.0.1'],
    maxBytes: 1024,
    ...overrides,
  });
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'no error';
    } catch (error) {
      return isApiError(error) ? `${error.code}: ${error.message}` : String(error);
    }
  };

  it('fetches text from an allow-listed host, following a redirect on it', async () => {
    expect(await fetchText(`http://127.0.0.1:${port}/redirect-in`, 'transcription_url', policy())).toContain('Hello');
  });

  it('fetches bytes unchanged', async () => {
    expect(await fetchBytes(`http://127.0.0.1:${port}/image.png`, 'query_media_url', policy())).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]),
    );
  });

  it.each([
    [
      'a loopback address not allow-listed',
      () => `http://127.0.0.1:${port}/ok.srt`,
      { allowHosts: [] },
      /parameter_invalid: .*127\.0\.0\.1 is a loopback address/,
    ],
    [
      'a name resolving to loopback (the address is not told)',
      () => `http://localhost:${port}/ok.srt`,
      {},
      /^parameter_invalid: The transcription_url could not be fetched: localhost does not resolve to a public address\.$/,
    ],
    [
      'a name that does not resolve (told as the one above: no DNS oracle)',
      () => 'http://no-such-host.invalid/ok.srt',
      {},
      /^parameter_invalid: The transcription_url could not be fetched: no-such-host\.invalid does not resolve to a public address\.$/,
    ],
    [
      'a redirect to a blocked host',
      () => `http://127.0.0.1:${port}/redirect-out`,
      {},
      /parameter_invalid: .*localhost does not resolve to a public address/,
    ],
    [
      'a redirect to another scheme',
      () => `http://127.0.0.1:${port}/redirect-ftp`,
      {},
      /parameter_invalid: .*The scheme ftp: is not allowed/,
    ],
    [
      'a metadata-service address',
      () => 'http://169.254.169.254/latest/meta-data',
      {},
      /parameter_invalid: .*169\.254\.169\.254 is a link-local address/,
    ],
    [
      'an IPv4-compatible IPv6 address',
      () => `http://[::127.0.0.1]:${port}/ok.srt`,
      {},
      /parameter_invalid: .*::7f00:1 is an IPv4-compatible address/,
    ],
    [
      'another scheme',
      () => 'ftp://127.0.0.1/x',
      {},
      /parameter_invalid: The transcription_url parameter is invalid\. The scheme ftp: is not allowed; use http or https\./,
    ],
    ['credentials', () => `http://u:p@127.0.0.1:${port}/ok.srt`, {}, /parameter_invalid: .*Credentials in the URL are not allowed/],
    ['an HTTP error', () => `http://127.0.0.1:${port}/missing`, {}, /parameter_invalid: .*HTTP 404/],
    [
      'a declared body over the limit',
      () => `http://127.0.0.1:${port}/big`,
      {},
      /payload_too_large: The transcription_url is larger than 1024 bytes/,
    ],
    [
      'an undeclared body over the limit',
      () => `http://127.0.0.1:${port}/big-chunked`,
      {},
      /payload_too_large: The transcription_url is larger than 1024 bytes/,
    ],
    ['a body that stalls', () => `http://127.0.0.1:${port}/stall`, { idleTimeoutMs: 200 }, /parameter_invalid: .*stalled for 0.2 s/],
    ['a redirect loop', () => `http://127.0.0.1:${port}/loop`, {}, /parameter_invalid: .*more than 5 redirects/],
    [
      'a body trickling below the minimum rate',
      () => `http://127.0.0.1:${port}/trickle`,
      { idleTimeoutMs: 1_000, minBytesPerSecond: 1_000, rateWindowMs: 200 },
      /parameter_invalid: .*the download was slower than 1000 bytes\/s over 0.2 s/,
    ],
    [
      'a body past the overall deadline',
      () => `http://127.0.0.1:${port}/trickle`,
      { idleTimeoutMs: 1_000, minBytesPerSecond: 0, overallTimeoutMs: 300 },
      /parameter_invalid: .*the download took longer than 0.3 s/,
    ],
  ])('refuses %s', async (_name, url, overrides, expected) => {
    expect(await failure(fetchText(url(), 'transcription_url', policy(overrides)))).toMatch(expected);
  });

  it.each([
    ['below the minimum rate', { minBytesPerSecond: 1_000, rateWindowMs: 200 }, /slower than 1000 bytes\/s/],
    ['past the overall deadline', { minBytesPerSecond: 0, overallTimeoutMs: 300 }, /took longer than 0.3 s/],
  ])('a streamed video download (openUrl) fails %s, however long the server would go on', async (_name, overrides, expected) => {
    const body = await openUrl(
      `http://127.0.0.1:${port}/trickle`,
      'video_url',
      policy({ idleTimeoutMs: 1_000, maxBytes: 2 * 1024 ** 3, ...overrides }),
    );
    const drained = (async () => {
      for await (const chunk of body) void chunk;
    })();
    expect(await failure(drained)).toMatch(expected);
  });

  it('a cancelled fetch says so', async () => {
    const controller = new AbortController();
    const pending = fetchBytes(`http://127.0.0.1:${port}/stall`, 'query_media_url', policy(), controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await failure(pending)).toBe('request_canceled_or_timed_out: The fetch was cancelled.');
  });

  it('checks a URL before any connection', () => {
    expect(checkFetchableUrl('video_url', ' http://example.com/a.mp4')).toBeInstanceOf(URL);
    expect(() => checkFetchableUrl('video_url', 'nope')).toThrow(
      'The video_url parameter is invalid. It must be an absolute http or https URL.',
    );
  });
});

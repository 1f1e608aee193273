import { isApiError } from '@vus/core';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_FETCH_POLICY, fetchText, isBlockedAddress, type FetchPolicy } from '../src/worker/fetch-url';

describe('isBlockedAddress', () => {
  it.each([
    ['127.0.0.1', true], ['10.1.2.3', true], ['172.16.0.1', true], ['172.32.0.1', false], ['192.168.1.1', true],
    ['169.254.169.254', true], ['100.64.0.1', true], ['0.0.0.0', true], ['224.0.0.1', true], ['8.8.8.8', false],
    ['93.184.216.34', false], ['::1', true], ['::', true], ['fe80::1', true], ['fd00::1', true], ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false], ['2606:4700:4700::1111', false], ['not-an-ip', true],
  ])('%s → %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });
});

describe('fetchText', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/ok.srt') return res.end('1\n00:00:01,000 --> 00:00:02,000\nHello\n');
      if (req.url === '/redirect-out') return res.writeHead(302, { location: 'http://localhost:' + port + '/ok.srt' }).end();
      if (req.url === '/redirect-in') return res.writeHead(302, { location: '/ok.srt' }).end();
      if (req.url === '/big') return res.end(Buffer.alloc(4096, 65));
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const policy = (overrides: Partial<FetchPolicy> = {}): FetchPolicy => ({ ...DEFAULT_FETCH_POLICY, allowHosts: ['127.0.0.1'], maxBytes: 1024, ...overrides });
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'no error';
    } catch (error) {
      return isApiError(error) ? `${error.code}: ${error.message}` : String(error);
    }
  };

  it('fetches from an allow-listed host, following a redirect on it', async () => {
    expect(await fetchText(`http://127.0.0.1:${port}/redirect-in`, 'transcription_url', policy())).toContain('Hello');
  });

  it.each([
    ['a loopback address not allow-listed', () => `http://127.0.0.1:${port}/ok.srt`, { allowHosts: [] }, /parameter_invalid: .*private or reserved/],
    ['a name resolving to loopback', () => `http://localhost:${port}/ok.srt`, {}, /parameter_invalid: .*localhost resolves only to private or reserved/],
    ['a redirect to a blocked host', () => `http://127.0.0.1:${port}/redirect-out`, {}, /parameter_invalid: .*private or reserved/],
    ['a metadata-service address', () => 'http://169.254.169.254/latest/meta-data', {}, /parameter_invalid: .*private or reserved/],
    ['another scheme', () => 'ftp://127.0.0.1/x', {}, /parameter_invalid: .*only http and https/],
    ['an HTTP error', () => `http://127.0.0.1:${port}/missing`, {}, /parameter_invalid: .*HTTP 404/],
    ['a body over the limit', () => `http://127.0.0.1:${port}/big`, {}, /payload_too_large/],
    ['a redirect loop', () => `http://127.0.0.1:${port}/loop`, {}, /parameter_invalid: .*more than 5 redirects/],
  ])('refuses %s', async (_name, url, overrides, expected) => {
    expect(await failure(fetchText(url(), 'transcription_url', policy(overrides)))).toMatch(expected);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveFiles, type FileServer } from '@vus/testing';

describe('serveFiles', () => {
  let dir: string;
  let server: FileServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vus-serve-'));
    await writeFile(join(dir, 'clip.mp4'), Buffer.from('0123456789'));
    await writeFile(join(dir, 'secret.txt'), 'not listed');
    server = await serveFiles({ 'clip.mp4': join(dir, 'clip.mp4') });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a listed file on loopback with its type and length', async () => {
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(server.url('clip.mp4'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-length')).toBe('10');
    expect(await res.text()).toBe('0123456789');
  });

  it.each([
    ['bytes=2-4', 206, '234', 'bytes 2-4/10'],
    ['bytes=7-', 206, '789', 'bytes 7-9/10'],
    ['bytes=-2', 206, '89', 'bytes 8-9/10'],
    ['bytes=20-30', 416, '', 'bytes */10'],
  ])('answers the range %s with %d', async (range, status, body, contentRange) => {
    const res = await fetch(server.url('clip.mp4'), { headers: { range } });
    expect(res.status).toBe(status);
    expect(await res.text()).toBe(body);
    expect(res.headers.get('content-range')).toBe(contentRange);
  });

  it('answers HEAD without a body', async () => {
    const res = await fetch(server.url('clip.mp4'), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('10');
  });

  it('serves nothing else: unknown names and traversal get 404', async () => {
    expect((await fetch(`${server.baseUrl}/secret.txt`)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/..%2Fsecret.txt`)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/`)).status).toBe(404);
  });

  it('records the requests it received', () => {
    expect(server.requests[0]).toEqual({ method: 'GET', path: '/clip.mp4' });
    expect(server.requests.some((r) => r.range === 'bytes=2-4')).toBe(true);
  });
});

import { CHUNK_PATH, createChunkSigner, type ChunkGrant } from '../src/http/signed-urls';

const grant: ChunkGrant = { orgId: '6528dde58f9cd95a98cbd075', uploadId: '6528dde58f9cd95a98cbd076', index: 3, maxBytes: 8388608 };
const now = new Date('2024-06-01T00:00:00Z');
const expiresAt = new Date('2024-06-02T00:00:00Z');

function paramsOf(path: string) {
  const url = new URL(path, 'http://x');
  const [, , uploadId, index] = url.pathname.split('/');
  const q = Object.fromEntries(url.searchParams);
  return { uploadId: uploadId!, index: index!, org: q.org, max: q.max, expires: q.expires, signature: q.signature };
}

describe('createChunkSigner', () => {
  const signer = createChunkSigner('s'.repeat(32));
  const path = signer.sign(grant, expiresAt);
  const signed = paramsOf(path);

  it('signs a path under the chunk route and verifies it until it expires', () => {
    expect(path.startsWith(`${CHUNK_PATH}/${grant.uploadId}/3?`)).toBe(true);
    expect(signer.verify(signed, now)).toEqual({ ok: true, grant });
    expect(signer.verify(signed, expiresAt)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['another organization', { org: '6528dde58f9cd95a98cbd078' }],
    ['another upload', { uploadId: '6528dde58f9cd95a98cbd079' }],
    ['another chunk', { index: '4' }],
    ['a larger size', { max: '9999999' }],
    ['a later expiry', { expires: String(Number(signed.expires) + 1) }],
    ['another spelling of the index', { index: '03' }],
    ['no signature', { signature: undefined }],
    ['a non-numeric size', { max: '1e9' }],
  ])('refuses %s', (_name, change) => {
    expect(signer.verify({ ...signed, ...change }, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a URL signed with another key', () => {
    expect(createChunkSigner('t'.repeat(32)).verify(signed, now)).toEqual({ ok: false, reason: 'invalid' });
  });
});

import { createThumbnailSigner, type ThumbnailGrant } from '../src/http/signed-urls';

const grant: ThumbnailGrant = {
  orgId: '6528dde58f9cd95a98cbd075',
  indexId: '6528dde58f9cd95a98cbd076',
  videoId: '6528dde58f9cd95a98cbd077',
  time: 2.5,
};
const now = new Date('2024-06-01T00:00:00Z');
const expiresAt = new Date('2024-06-01T01:00:00Z');

function paramsOf(path: string) {
  const url = new URL(path, 'http://x');
  const [, , indexId, videoId] = url.pathname.split('/');
  const q = Object.fromEntries(url.searchParams);
  return { indexId: indexId!, videoId: videoId!, org: q.org, t: q.t, expires: q.expires, signature: q.signature };
}

describe('createThumbnailSigner', () => {
  const signer = createThumbnailSigner('s'.repeat(32));
  const signed = paramsOf(signer.sign(grant, expiresAt));

  it('verifies its own URL until it expires', () => {
    expect(signer.verify(signed, now)).toEqual({ ok: true, grant, expiresAt });
    expect(signer.verify(signed, new Date('2024-06-01T00:59:59Z')).ok).toBe(true);
    expect(signer.verify(signed, expiresAt)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['another org', { org: '6528dde58f9cd95a98cbd078' }],
    ['another index', { indexId: '6528dde58f9cd95a98cbd078' }],
    ['another video', { videoId: '6528dde58f9cd95a98cbd078' }],
    ['another time', { t: '3' }],
    ['the same time written differently', { t: '2.50' }],
    ['a later expiry', { expires: String(Number(signed.expires) + 1) }],
    ['a changed signature', { signature: `x${signed.signature!.slice(1)}` }],
    ['no signature', { signature: undefined }],
    ['a non-numeric expiry', { expires: 'soon' }],
  ])('refuses %s', (_label, change) => {
    expect(signer.verify({ ...signed, ...change }, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a URL signed with another secret, even when expired', () => {
    const other = paramsOf(createThumbnailSigner('t'.repeat(32)).sign(grant, expiresAt));
    expect(signer.verify(other, new Date('2030-01-01T00:00:00Z'))).toEqual({ ok: false, reason: 'invalid' });
  });
});

import { createHmac, timingSafeEqual } from 'node:crypto';

/** Which chunk of which organization's multipart upload a signed URL lets its holder PUT, and how large. */
export interface ChunkGrant {
  orgId: string;
  uploadId: string;
  /** 1-based. */
  index: number;
  /** The chunk's exact size: nothing larger is stored. */
  maxBytes: number;
}

/** The path the gateway takes chunk uploads under (outside the versioned, key-checked API). */
export const CHUNK_PATH = '/multipart-chunks';

export type ChunkVerifyResult = { ok: true; grant: ChunkGrant } | { ok: false; reason: 'invalid' | 'expired' };

const DIGITS = /^\d{1,15}$/;

/**
 * Presigned chunk URLs of multipart uploads (the 1.x SDK PUTs each chunk to one, with no API key,
 * as it would to S3): HMAC-SHA256 over every field and the expiry, so none can be changed.
 */
export function createChunkSigner(secret: string) {
  const mac = (grant: ChunkGrant, expires: number) =>
    createHmac('sha256', secret)
      .update(['multipart-chunk', grant.orgId, grant.uploadId, String(grant.index), String(grant.maxBytes), String(expires)].join('\n'))
      .digest('base64url');

  return {
    /** Path and query (no origin) of a URL valid until `expiresAt`. */
    sign(grant: ChunkGrant, expiresAt: Date): string {
      const expires = Math.floor(expiresAt.getTime() / 1000);
      const query = new URLSearchParams({
        org: grant.orgId,
        max: String(grant.maxBytes),
        expires: String(expires),
        signature: mac(grant, expires),
      });
      return `${CHUNK_PATH}/${grant.uploadId}/${grant.index}?${query.toString()}`;
    },

    verify(
      params: { uploadId: string; index: string; org?: string; max?: string; expires?: string; signature?: string },
      now: Date,
    ): ChunkVerifyResult {
      const { uploadId, index, org, max, expires, signature } = params;
      if (!org || !signature || !DIGITS.test(index) || !max || !DIGITS.test(max) || !expires || !DIGITS.test(expires)) {
        return { ok: false, reason: 'invalid' };
      }
      const grant: ChunkGrant = { orgId: org, uploadId, index: Number(index), maxBytes: Number(max) };
      if (String(grant.index) !== index || String(grant.maxBytes) !== max) return { ok: false, reason: 'invalid' };
      const a = Buffer.from(signature);
      const b = Buffer.from(mac(grant, Number(expires)));
      if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: 'invalid' };
      if (Number(expires) * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
      return { ok: true, grant };
    },
  };
}

export type ChunkSigner = ReturnType<typeof createChunkSigner>;

import { createHmac, timingSafeEqual } from 'node:crypto';

/** Which thumbnail a signed URL grants, and to which organization's data. */
export interface ThumbnailGrant {
  orgId: string;
  indexId: string;
  videoId: string;
  /** Seconds into the video: the thumbnail index-service chose when the URL was made. */
  time: number;
}

export type VerifyResult = { ok: true; grant: ThumbnailGrant; expiresAt: Date } | { ok: false; reason: 'invalid' | 'expired' };

/** The path the gateway serves thumbnails under (outside the versioned, key-checked API). */
export const THUMBNAIL_PATH = '/thumbnails';

/**
 * Thumbnail URLs that need no API key (they end up in <img> tags) but grant one thumbnail of
 * one organization until they expire: HMAC-SHA256 over every field, expiry included, so changing
 * any of them (or the expiry) breaks the signature.
 */
export function createThumbnailSigner(secret: string) {
  const mac = (grant: ThumbnailGrant, expires: number) =>
    createHmac('sha256', secret)
      .update(['thumbnail', grant.orgId, grant.indexId, grant.videoId, String(grant.time), String(expires)].join('\n'))
      .digest('base64url');

  return {
    /** Path and query (no origin) of a URL valid until `expiresAt`. */
    sign(grant: ThumbnailGrant, expiresAt: Date): string {
      const expires = Math.floor(expiresAt.getTime() / 1000);
      const query = new URLSearchParams({ org: grant.orgId, t: String(grant.time), expires: String(expires), signature: mac(grant, expires) });
      return `${THUMBNAIL_PATH}/${grant.indexId}/${grant.videoId}?${query.toString()}`;
    },

    verify(params: { indexId: string; videoId: string; org?: string; t?: string; expires?: string; signature?: string }, now: Date): VerifyResult {
      const { indexId, videoId, org, t, expires, signature } = params;
      if (!org || !t || !expires || !signature || !/^\d+$/.test(expires)) return { ok: false, reason: 'invalid' };
      const time = Number(t);
      if (!Number.isFinite(time)) return { ok: false, reason: 'invalid' };
      const grant: ThumbnailGrant = { orgId: org, indexId, videoId, time };
      // String(time) must reproduce `t` exactly, or "5" and "5.0" would be two names for one grant.
      if (String(time) !== t) return { ok: false, reason: 'invalid' };
      const expected = Buffer.from(mac(grant, Number(expires)));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
      const expiresAt = new Date(Number(expires) * 1000);
      // Checked after the signature: only a genuine URL is ever told that it expired.
      if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
      return { ok: true, grant, expiresAt };
    },
  };
}

export type ThumbnailSigner = ReturnType<typeof createThumbnailSigner>;

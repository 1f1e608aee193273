import type { Request } from 'express';
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

/** The origin put in front of a signed path: the configured public URL, else the request's own. */
export function publicOrigin(req: Request, publicUrl: string | undefined): string {
  return (publicUrl ?? `${req.protocol}://${req.get('host')}`).replace(/\/$/, '');
}

/** The path the gateway serves thumbnails under (outside the versioned, key-checked API). */
export const THUMBNAIL_PATH = '/thumbnails';

/**
 * A signed URL's signature against the expected one (constant time), then its expiry (Unix
 * seconds) — in that order, so only a genuine URL is ever told that it expired.
 */
function checkSignature(
  given: string,
  expected: string,
  expiresUnix: number,
  now: Date,
): { ok: true; expiresAt: Date } | { ok: false; reason: 'invalid' | 'expired' } {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: 'invalid' };
  const expiresAt = new Date(expiresUnix * 1000);
  if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, expiresAt };
}

/**
 * Thumbnail URLs that need no API key (they end up in <img> tags) but grant one thumbnail of
 * one organization until they expire: HMAC-SHA256 over every field, expiry included, so changing
 * any of them (or the expiry) breaks the signature. `hls` signs video streams with the same key,
 * `chunks` multipart upload chunks.
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
      const query = new URLSearchParams({
        org: grant.orgId,
        t: String(grant.time),
        expires: String(expires),
        signature: mac(grant, expires),
      });
      return `${THUMBNAIL_PATH}/${grant.indexId}/${grant.videoId}?${query.toString()}`;
    },

    verify(
      params: { indexId: string; videoId: string; org?: string; t?: string; expires?: string; signature?: string },
      now: Date,
    ): VerifyResult {
      const { indexId, videoId, org, t, expires, signature } = params;
      if (!org || !t || !expires || !signature || !/^\d+$/.test(expires)) return { ok: false, reason: 'invalid' };
      const time = Number(t);
      if (!Number.isFinite(time)) return { ok: false, reason: 'invalid' };
      const grant: ThumbnailGrant = { orgId: org, indexId, videoId, time };
      // String(time) must reproduce `t` exactly, or "5" and "5.0" would be two names for one grant.
      if (String(time) !== t) return { ok: false, reason: 'invalid' };
      const checked = checkSignature(signature, mac(grant, Number(expires)), Number(expires), now);
      return checked.ok ? { ok: true, grant, expiresAt: checked.expiresAt } : checked;
    },

    hls: createHlsSigner(secret),
    /** Presigned chunk URLs of multipart asset uploads (chunk-urls.ts). */
    chunks: createChunkSigner(secret),
  };
}

export type ThumbnailSigner = ReturnType<typeof createThumbnailSigner>;

/** The path the gateway serves video streams under: `/hls/<token>/<file>`. */
export const HLS_PATH = '/hls';

/** One file name inside a stream's folder: no slash, no leading dot (so never `..`). */
const HLS_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
/** A blob folder: slash-separated plain names ending in a slash (libs/blob's key rule). */
const HLS_FOLDER = /^([A-Za-z0-9_-][A-Za-z0-9._-]*\/)+$/;
const isFolder = (folder: string) => folder.length <= 384 && HLS_FOLDER.test(folder);

export type HlsVerifyResult = { ok: true; folder: string; expiresAt: Date } | { ok: false; reason: 'invalid' | 'expired' };

/**
 * URLs of a video's HLS stream. A player reads the playlist, then fetches the segments it names
 * relative to it, so the grant is the stream's whole blob folder and sits in the path, where
 * relative URIs keep it: `/hls/<token>/index.m3u8` and `/hls/<token>/seg0.ts` carry one token,
 * `base64url(folder).<expires>.<HMAC-SHA256("hls", folder, expires)>`. Only the gateway signs,
 * and only folders of streams the worker recorded; a file is one plain name inside the folder.
 */
export function createHlsSigner(secret: string) {
  const mac = (folder: string, expires: number) =>
    createHmac('sha256', secret)
      .update(['hls', folder, String(expires)].join('\n'))
      .digest('base64url');

  return {
    /**
     * The path (no origin) of a stored stream file (`videos/<id>/hls/index.m3u8`), valid until
     * `expiresAt`; undefined for a key that is not a file inside a folder.
     */
    url(key: string, expiresAt: Date): string | undefined {
      const cut = key.lastIndexOf('/') + 1;
      const folder = key.slice(0, cut);
      const file = key.slice(cut);
      if (!isFolder(folder) || !HLS_FILE.test(file)) return undefined;
      const expires = Math.floor(expiresAt.getTime() / 1000);
      return `${HLS_PATH}/${Buffer.from(folder).toString('base64url')}.${expires}.${mac(folder, expires)}/${file}`;
    },

    verify(token: string, now: Date): HlsVerifyResult {
      const match = /^([A-Za-z0-9_-]+)\.(\d{1,12})\.([A-Za-z0-9_-]+)$/.exec(token);
      if (!match) return { ok: false, reason: 'invalid' };
      const [, encoded = '', expires = '', signature = ''] = match;
      const folder = Buffer.from(encoded, 'base64url').toString('utf8');
      // The folder must re-encode to exactly what was given: one name per grant.
      if (!isFolder(folder) || Buffer.from(folder).toString('base64url') !== encoded) return { ok: false, reason: 'invalid' };
      const checked = checkSignature(signature, mac(folder, Number(expires)), Number(expires), now);
      return checked.ok ? { ok: true, folder, expiresAt: checked.expiresAt } : checked;
    },

    /** The blob key of `file` in a verified folder, or undefined when `file` is not a plain name. */
    keyOf(folder: string, file: string): string | undefined {
      return HLS_FILE.test(file) ? `${folder}${file}` : undefined;
    },
  };
}

export type HlsSigner = ReturnType<typeof createHlsSigner>;

/** Which chunk of which organization's multipart upload a signed URL lets its holder PUT, and how large. */
export interface ChunkGrant {
  orgId: string;
  uploadId: string;
  /** 1-based. */
  index: number;
  /** Nothing larger is stored. */
  maxBytes: number;
}

/** The path the gateway takes chunk uploads under (outside the versioned, key-checked API). */
export const CHUNK_PATH = '/multipart-chunks';

export type ChunkVerifyResult = { ok: true; grant: ChunkGrant } | { ok: false; reason: 'invalid' | 'expired' };

const DIGITS = /^\d{1,15}$/;

/**
 * Presigned chunk URLs of multipart asset uploads (the 1.x SDK PUTs each chunk to one with no API
 * key, as it would to S3): HMAC-SHA256 over every field and the expiry, so none can be changed.
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
      // One spelling per grant ("3", never "03").
      if (String(grant.index) !== index || String(grant.maxBytes) !== max) return { ok: false, reason: 'invalid' };
      const checked = checkSignature(signature, mac(grant, Number(expires)), Number(expires), now);
      return checked.ok ? { ok: true, grant } : checked;
    },
  };
}

export type ChunkSigner = ReturnType<typeof createChunkSigner>;

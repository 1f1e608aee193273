import type { BlobStore } from '@vus/blob';
import { ApiError, type Clock } from '@vus/core';
import { Router, type Request } from 'express';
import { extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { HLS_PATH, publicOrigin, type HlsSigner } from '../http/signed-urls';
import type { HlsUrlOf } from '../presenters/videos';

/** What a stream folder holds: the playlist, its MPEG-TS segments, a still. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.jpg': 'image/jpeg',
};

export interface StreamUrlOptions {
  signer: HlsSigner;
  clock: Clock;
  /** How long a URL stays valid before the playback time is added. */
  ttlMs: number;
  /** Origin put in front of the path; default: the request's own. */
  publicUrl?: string | undefined;
}

/**
 * Turns the stream blob keys a task or video carries into signed URLs, per video: they stay valid
 * for `ttlMs` plus twice the video's duration, so a playback started just before the URL would
 * expire can still fetch its last segments (a player keeps the URL it started with). Expiries
 * are rounded up to the minute: a client polling the task sees one URL, not a new one per second.
 */
export function streamUrls(req: Request, options: StreamUrlOptions): (durationSec: number) => HlsUrlOf {
  const origin = publicOrigin(req, options.publicUrl);
  const now = options.clock.now().getTime();
  return (durationSec) => {
    const expiresAt = new Date(Math.ceil((now + options.ttlMs + Math.max(0, durationSec) * 2000) / 60_000) * 60_000);
    return (key) => {
      const path = options.signer.url(key, expiresAt);
      return path && `${origin}${path}`;
    };
  };
}

const notFound = () => new ApiError('resource_not_exist', 'This video stream has no such file.');

/**
 * Serves the stream URLs that tasks and videos show. No API key: the token in the path is the
 * permission (a signed blob folder and an expiry), and the relative URIs of the playlist keep it.
 * Only plain file names with a known type are served, from that folder only.
 */
export function hlsFileRoutes(blobs: BlobStore | undefined, signer: HlsSigner, clock: Clock): Router {
  const router = Router();

  router.get(`${HLS_PATH}/:token/:file`, async (req, res) => {
    const verified = signer.verify(String(req.params.token), clock.now());
    if (!verified.ok) {
      throw new ApiError(
        'api_not_allowed',
        verified.reason === 'expired'
          ? 'This video stream URL has expired. Retrieve the video again for a new one.'
          : 'This video stream URL is not valid.',
      );
    }
    const file = String(req.params.file);
    const contentType = CONTENT_TYPES[extname(file)];
    const key = signer.keyOf(verified.folder, file);
    if (!blobs || !contentType || !key) throw notFound();
    const info = await blobs.stat(key);
    if (!info) throw notFound();
    const body = await blobs.get(key);
    const maxAge = Math.max(0, Math.floor((verified.expiresAt.getTime() - clock.now().getTime()) / 1000));
    res.set({
      'content-type': contentType,
      'content-length': String(info.size),
      'cache-control': `private, max-age=${maxAge}`,
      // Web players (hls.js) fetch the segments from their page's origin; the URL is the permission.
      'access-control-allow-origin': '*',
    });
    try {
      await pipeline(body, res);
    } catch (error) {
      // The player went away mid-file: nothing to answer.
      if (!res.headersSent) throw error;
      res.destroy();
    }
  });

  return router;
}

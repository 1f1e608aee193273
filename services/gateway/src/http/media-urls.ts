import type { Clock } from '@vus/core';
import type { Request, Response } from 'express';
import type { HlsUrlOf } from '../presenters/videos';
import { locals } from './context';
import { publicOrigin, type HlsSigner, type ThumbnailGrant, type ThumbnailSigner } from './signed-urls';

/*
 * The signed URLs that answers carry (thumbnails, video streams), made for one request: its origin
 * (or the configured public one) and its organization. Used by every route that shows a video.
 */

/** How thumbnail URLs are made: signed by the gateway, valid for `ttlMs`. */
export interface ThumbnailUrlOptions {
  signer: ThumbnailSigner;
  clock: Clock;
  ttlMs: number;
  /** Origin put in front of the path, e.g. https://video.example.com; default: the request's own. */
  publicUrl?: string | undefined;
}

/**
 * Signed thumbnail URLs for one response, on behalf of the request's organization: one expiry
 * for all of them.
 */
export function thumbnailUrls(
  req: Request,
  res: Response,
  thumbnails: ThumbnailUrlOptions,
): (grant: Omit<ThumbnailGrant, 'orgId'>) => string {
  const origin = publicOrigin(req, thumbnails.publicUrl);
  const expiresAt = new Date(thumbnails.clock.now().getTime() + thumbnails.ttlMs);
  const orgId = locals(res).orgId!;
  return (grant) => `${origin}${thumbnails.signer.sign({ orgId, ...grant }, expiresAt)}`;
}

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

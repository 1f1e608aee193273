import { ApiError } from '@vus/core';
import { headerValue, HttpTimeout, send } from '@vus/fetch';

/**
 * The outside services some import endpoints depend on (API-CONTRACT §5.3): YouTube for
 * POST /tasks/external-provider, S3 for POST /tasks/transfers. Their base URLs are the operator's
 * settings (a mirror, MinIO, or an unreachable default on an offline machine), never the user's.
 */
export interface ProviderSettings {
  /** e.g. https://www.youtube.com (YOUTUBE_BASE_URL). */
  youtubeUrl: string;
  /** S3 endpoint, objects addressed path-style as <url>/<bucket>/<key> (S3_BASE_URL). */
  s3Url: string;
  /** How long to wait for a provider's first answer (PROVIDER_TIMEOUT_MS). */
  timeoutMs: number;
}

export const DEFAULT_PROVIDERS: ProviderSettings = {
  youtubeUrl: 'https://www.youtube.com',
  s3Url: 'https://s3.amazonaws.com',
  timeoutMs: 5_000,
};

/** What a provider said to one request: its status and content type, or why nothing came. */
export type ProviderAnswer = { reached: true; status: number; contentType: string } | { reached: false; why: string };

/**
 * One GET through the one outbound client (no address rules: the URL is the operator's), bounded
 * by `timeoutMs` from start to response headers; the body is never read. Never throws: an
 * unreachable provider is an answer too.
 */
export async function askProvider(url: string, timeoutMs: number): Promise<ProviderAnswer> {
  try {
    const response = await send({
      url: new URL(url),
      headers: { 'user-agent': 'vus-gateway/1' },
      deadlines: { connectMs: timeoutMs, idleMs: timeoutMs, overallMs: timeoutMs },
    });
    response.body.destroy();
    return {
      reached: true,
      status: response.status,
      contentType: headerValue(response.headers, 'content-type').split(';')[0]!.trim().toLowerCase(),
    };
  } catch (error) {
    if (error instanceof HttpTimeout) return { reached: false, why: `no answer within ${timeoutMs / 1000} s` };
    const e = error as NodeJS.ErrnoException;
    return { reached: false, why: e.code ? `${e.code}${e.message ? ` (${e.message})` : ''}` : e.message };
  }
}

/** The answer when a provider could not be reached: retryable, names who and what was tried. */
export function providerUnreachable(provider: string, url: string, why: string, advice: string): ApiError {
  return new ApiError('service_unavailable', `${provider} could not be reached from this server: GET ${url} failed: ${why}. ${advice}`);
}

/** Whether a content type is a media file the indexing worker could download and probe. */
export function isMediaType(contentType: string): boolean {
  return /^(video|audio)\//.test(contentType) || contentType === 'application/octet-stream';
}

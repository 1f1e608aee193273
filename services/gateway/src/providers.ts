import { ApiError } from '@vus/core';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

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
 * One GET, bounded by `timeoutMs` from start to response headers; the body is never read. Never
 * throws: an unreachable provider is an answer too.
 */
export function askProvider(url: string, timeoutMs: number): Promise<ProviderAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', signal, agent: false, headers: { 'user-agent': 'vus-gateway/1' } }, (response) => {
      resolve({ reached: true, status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() });
      response.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) return resolve({ reached: false, why: `no answer within ${timeoutMs / 1000} s` });
      resolve({ reached: false, why: error.code ? `${error.code}${error.message ? ` (${error.message})` : ''}` : error.message });
    });
    req.end();
  });
}

/** The answer when a provider could not be reached: retryable, names who and what was tried. */
export function providerUnreachable(provider: string, url: string, why: string, advice: string): ApiError {
  return new ApiError('service_unavailable', `${provider} could not be reached from this server: GET ${url} failed: ${why}. ${advice}`);
}

/** Whether a content type is a media file the indexing worker could download and probe. */
export function isMediaType(contentType: string): boolean {
  return /^(video|audio)\//.test(contentType) || contentType === 'application/octet-stream';
}

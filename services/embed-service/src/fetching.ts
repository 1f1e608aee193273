import { DEFAULT_FETCH_POLICY, fetchBytes, type FetchPolicy } from '@vus/fetch';
import { SYNC_LIMITS } from './embed';

/** The largest video an embed task downloads. */
const TASK_VIDEO_MAX_BYTES = 2 * 1024 ** 3;

/** How embed-service fetches media URLs (the SSRF guard, with `allowHosts` let through): synchronous requests' media, and embed tasks' videos. */
export function mediaFetching(allowHosts: readonly string[] = []): {
  fetchMedia: (url: string, param: string) => Promise<Buffer>;
  taskPolicy: FetchPolicy;
} {
  const syncPolicy = { ...DEFAULT_FETCH_POLICY, allowHosts, maxBytes: SYNC_LIMITS.audioBytes, idleTimeoutMs: 10_000 };
  return {
    fetchMedia: (url, param) => fetchBytes(url, param, syncPolicy),
    taskPolicy: { ...DEFAULT_FETCH_POLICY, allowHosts, maxBytes: TASK_VIDEO_MAX_BYTES },
  };
}

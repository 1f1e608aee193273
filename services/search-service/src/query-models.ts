import { DEFAULT_FETCH_POLICY, fetchBytes } from '@vus/fetch';
import type { ModelRegistry } from '@vus/models';
import { QUERY_IMAGE_MAX_BYTES, type QueryModels } from './search';

/** The vector model name the indexing worker writes CLIP vectors under. */
export const VISUAL_VECTOR_MODEL = 'clip';

/** CLIP (text and image queries) and the object detector (image queries without CLIP), when present. */
export function queryModels(models: ModelRegistry | undefined): QueryModels {
  return {
    async embedder() {
      const embedder = await models?.find('visual_embedder');
      return embedder && { model: VISUAL_VECTOR_MODEL, embedder };
    },
    detector: async () => models?.find('object_detector'),
  };
}

/** Fetches a query_media_url (image queries): the SSRF guard, the image size cap, a 10 s idle limit. */
export function queryImageFetcher(allowHosts: readonly string[] = []): (url: string) => Promise<Buffer> {
  const policy = { ...DEFAULT_FETCH_POLICY, allowHosts, maxBytes: QUERY_IMAGE_MAX_BYTES, idleTimeoutMs: 10_000 };
  return (url) => fetchBytes(url, 'query_media_url', policy);
}

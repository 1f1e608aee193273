import type { EmbedClient } from '@vus/clients';
import { isApiError, type Logger } from '@vus/core';
import { DEFAULT_FETCH_POLICY, fetchBytes } from '@vus/fetch';
import type { OutgoingContext } from '@vus/grpc';
import { QUERY_IMAGE_MAX_BYTES } from './query-image';
import type { QueryModels } from './search-types';

/** A query's vector or labels in time, or the search goes on without them. */
const CALL_TIMEOUT_MS = 10_000;

/**
 * Query vectors and image labels from embed-service, the model server (this service loads no
 * model). Its visual model (model name empty: the one segment vectors are stored under) may be
 * absent there: the search is then lexical. embed-service itself may be down or slow: the
 * search is then lexical too, and each such search says so in the log. Errors of the query
 * itself (a broken image) are the caller's and reach them.
 */
export function queryModels(client: EmbedClient | undefined, logger: Logger): QueryModels {
  const ctx = (orgId: string): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + CALL_TIMEOUT_MS) });
  async function degraded<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (isApiError(error) && error.httpStatus < 500) throw error;
      logger.warn(
        { err: error },
        `embed-service did not answer (${what}): this search runs without it, on the indexed words and labels only`,
      );
      return undefined;
    }
  }
  if (!client) logger.warn('no embed-service configured: searches run on the indexed words and labels only, without vectors');
  return {
    async embed(orgId, input) {
      if (!client) return undefined;
      const answer = await degraded('query vector', () =>
        client.embedQuery(ctx(orgId), { model_name: '', inputs: ['text' in input ? { text: input.text } : { image: input.image }] }),
      );
      const values = answer?.available ? answer.vectors[0]?.values : undefined;
      return answer && values ? { model: answer.model_name, vector: Float32Array.from(values) } : undefined;
    },
    async imageLabels(orgId, image) {
      if (!client) return undefined;
      const answer = await degraded('image labels', () => client.detectImageLabels(ctx(orgId), { image }));
      return answer?.available ? answer.labels : undefined;
    },
  };
}

/** Fetches a query_media_url (image queries): the SSRF guard, the image size cap, a 10 s idle limit. */
export function queryImageFetcher(allowHosts: readonly string[] = []): (url: string) => Promise<Buffer> {
  const policy = { ...DEFAULT_FETCH_POLICY, allowHosts, maxBytes: QUERY_IMAGE_MAX_BYTES, idleTimeoutMs: 10_000 };
  return (url) => fetchBytes(url, 'query_media_url', policy);
}

import type { ModelRegistry } from '@vus/models';
import type { QueryModels } from './search';

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

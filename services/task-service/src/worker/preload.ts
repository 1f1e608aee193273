import type { Logger } from '@vus/core';
import type { Capability, ModelRegistry } from '@vus/models';

/** The models a task run may ask the registry for: the frame extractors' (stages/extract.ts) and speech recognition. */
export const INDEXING_CAPABILITIES = [
  'text_reader',
  'object_detector',
  'face_detector',
  'face_embedder',
  'speech_recognizer',
] as const satisfies readonly Capability[];

/**
 * Loads the indexing models when the worker starts, so the first video does not wait for them.
 * The registry loads each once and remembers a failure with its reason, so a task still finds what
 * loaded and reports why the rest did not, as with a load on first use. Never rejects.
 */
export async function preloadModels(models: Pick<ModelRegistry, 'find' | 'status'>, logger: Logger): Promise<void> {
  const started = performance.now();
  const found = await Promise.all(
    INDEXING_CAPABILITIES.map(async (capability) => [capability, await models.find(capability).catch(() => undefined)] as const),
  );
  const missing = new Set<string>(found.filter(([, instance]) => instance === undefined).map(([capability]) => capability));
  logger.info(
    {
      loaded: found.filter(([, instance]) => instance !== undefined).map(([capability]) => capability),
      // Why each missing one is (the registry's reasons, as /health gives them).
      missing: models.status().filter((s) => missing.has(s.capability)),
      seconds: (performance.now() - started) / 1000,
    },
    'indexing models loaded',
  );
}

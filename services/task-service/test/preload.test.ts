import type { Logger } from '@vus/core';
import type { ProviderStatus } from '@vus/models';
import { INDEXING_CAPABILITIES, preloadModels } from '../src/worker/preload';

/** A registry whose capabilities load (an instance), are missing (undefined) or fail (a rejection). */
function registry(outcomes: Record<string, 'loads' | 'missing' | 'throws'>) {
  const asked: string[] = [];
  return {
    asked,
    find: async (capability: string) => {
      asked.push(capability);
      if (outcomes[capability] === 'throws') throw new Error('broken');
      return outcomes[capability] === 'loads' ? { capability } : undefined;
    },
    status: (): ProviderStatus[] =>
      Object.entries(outcomes).map(([capability, outcome]) => ({
        capability,
        provider: `${capability}-provider`,
        model: 'm',
        kind: 'bundled',
        state: outcome === 'loads' ? 'loaded' : 'unavailable',
        ...(outcome === 'loads' ? {} : { reason: `${capability} is not here` }),
      })) as ProviderStatus[],
  };
}

/** A logger that keeps its info lines (fields and message). */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = { info: (fields: Record<string, unknown>, msg: string) => lines.push({ ...fields, msg }) } as unknown as Logger;
  return { logger, lines };
}

it.each([
  ['every model loads', { text_reader: 'loads', object_detector: 'loads' }, ['text_reader', 'object_detector'], []],
  [
    'a missing and a failing one are reported with their reasons',
    { text_reader: 'loads', object_detector: 'missing', face_detector: 'throws' },
    ['text_reader'],
    ['object_detector', 'face_detector'],
  ],
  ['nothing is installed', {}, [], []],
] as const)('asks the registry for every indexing model once: %s', async (_, outcomes, loaded, missingWithReasons) => {
  const models = registry(outcomes);
  const { logger, lines } = capturingLogger();
  await expect(preloadModels(models as never, logger)).resolves.toBeUndefined();
  expect(models.asked.sort()).toEqual([...INDEXING_CAPABILITIES].sort());
  const line = lines.find((l) => l.msg === 'indexing models loaded')!;
  expect(line.loaded).toEqual(loaded);
  expect((line.missing as ProviderStatus[]).map((s) => [s.capability, s.reason])).toEqual(
    missingWithReasons.map((capability) => [capability, `${capability} is not here`]),
  );
});

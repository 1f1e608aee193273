import { fromTimestamp } from '@vus/grpc';
import type { Engine } from '@vus/grpc/types/index/v1/Engine';
import type { VersionAdapter } from '../versions';

/** An engine object (API-CONTRACT §5.4): the common fields and the version's names for the rest. */
export function presentEngine(version: VersionAdapter, engine: Engine): Record<string, unknown> {
  const common = {
    _id: engine.id,
    author: engine.author,
    ready: engine.ready,
    finetune: engine.finetune,
    created_at: fromTimestamp(engine.created_at)?.toISOString(),
    updated_at: fromTimestamp(engine.updated_at)?.toISOString(),
  };
  return { ...common, ...version.engines.presentFields(engine) };
}

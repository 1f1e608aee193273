import { fromTimestamp } from '@vus/grpc';
import type { Engine } from '@vus/grpc/types/index/v1/Engine';
import { canonicalToV13Options, type ApiVersion } from '../versions';

/** v1.2 engine object (API-CONTRACT §5.4); v1.3 dropped /engines, we keep it with v1.3 names. */
export function presentEngine(version: ApiVersion, engine: Engine): Record<string, unknown> {
  const common = {
    _id: engine.id,
    author: engine.author,
    ready: engine.ready,
    finetune: engine.finetune,
    created_at: fromTimestamp(engine.created_at)?.toISOString(),
    updated_at: fromTimestamp(engine.updated_at)?.toISOString(),
  };
  if (version === 'v1.2') return { ...common, allowed_engine_options: engine.allowed_options };
  return {
    ...common,
    model_name: engine.id,
    model_family: engine.family,
    allowed_model_options: canonicalToV13Options(engine.allowed_options),
  };
}

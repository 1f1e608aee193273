import { fromTimestamp } from '@vus/grpc';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import { canonicalToV13Options, type ApiVersion } from '../versions';

const iso = (ts: Index['created_at']): string | null => fromTimestamp(ts)?.toISOString() ?? null;

/** An index as each version shows it (API-CONTRACT §5.1): `engines` in v1.2, `models` in v1.3. */
export function presentIndex(version: ApiVersion, index: Index): Record<string, unknown> {
  const common = {
    _id: index.id,
    index_name: index.name,
    addons: index.addons,
    video_count: index.video_count,
    total_duration: index.total_duration,
    created_at: iso(index.created_at),
    updated_at: iso(index.updated_at),
    expires_at: iso(index.expires_at),
  };
  if (version === 'v1.2') {
    return {
      ...common,
      engines: index.models.map((m) => ({ engine_name: m.name, engine_options: m.options, addons: index.addons })),
    };
  }
  return { ...common, models: index.models.map((m) => ({ model_name: m.name, model_options: canonicalToV13Options(m.options) })) };
}

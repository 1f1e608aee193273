import { fromTimestamp } from '@vus/grpc';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { VersionAdapter } from '../versions';

const iso = (ts: Index['created_at']): string | null => fromTimestamp(ts)?.toISOString() ?? null;

/** An index as the version shows it (API-CONTRACT §5.1): its models under the version's names. */
export function presentIndex(version: VersionAdapter, index: Index): Record<string, unknown> {
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
  return { ...common, ...version.indexes.presentModels(index) };
}

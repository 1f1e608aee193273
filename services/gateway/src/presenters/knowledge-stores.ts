import { fromTimestamp } from '@vus/grpc';
import type { KnowledgeStore } from '@vus/grpc/types/task/v1/KnowledgeStore';
import type { KnowledgeStoreItem } from '@vus/grpc/types/task/v1/KnowledgeStoreItem';

const iso = (ts: KnowledgeStore['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/** The enrichment config as the reference writes it: json_schema back from its JSON text. */
function presentEnrichment(config: KnowledgeStore['enrichment_config']) {
  if (!config) return undefined;
  return config.type === 'description'
    ? { type: 'description', description: config.description }
    : { type: 'json_schema', json_schema: JSON.parse(config.json_schema) as unknown };
}

/** A knowledge store (twelvelabs-js 1.3.4 KnowledgeStore); ingestion_config only when one was set. */
export function presentKnowledgeStore(store: KnowledgeStore) {
  const enrichment = presentEnrichment(store.enrichment_config);
  return {
    _id: store.id,
    name: store.name,
    description: store.description,
    ...(enrichment ? { ingestion_config: { enrichment_config: enrichment } } : {}),
    item_count: store.item_count,
    metadata: store.metadata,
    created_at: iso(store.created_at),
    updated_at: iso(store.updated_at),
  };
}

/** An item (KnowledgeStoreItem): system_metadata is the source asset's media, tagged with its asset_type. */
export function presentItem(item: KnowledgeStoreItem) {
  const positive = (n: number) => (n > 0 ? n : undefined);
  return {
    _id: item.id,
    asset_type: item.asset_type,
    asset_id: item.asset_id,
    status: item.status,
    system_metadata: {
      asset_type: item.asset_type,
      filename: item.filename,
      ...(item.asset_type === 'video' ? { duration: positive(item.duration) } : {}),
      width: positive(item.width),
      height: positive(item.height),
      size: positive(Number(item.size)),
    },
    metadata: item.metadata,
    created_at: iso(item.created_at),
    updated_at: iso(item.updated_at),
  };
}

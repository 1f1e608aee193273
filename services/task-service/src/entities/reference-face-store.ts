import type { Database } from '@vus/db';

/** What is kept of a reference image's face (migration 0012): its embedding, or null for an image without one. */
export interface StoredReferenceFace {
  assetId: string;
  embedding: Float32Array | null;
  faces: number;
  model: string;
}

/** An entity's image asset as embedding needs it: its file once the asset is ready. */
export interface ReferenceAssetFile {
  assetId: string;
  ready: boolean;
  blobKey: string | null;
  size: number | null;
}

/** Reference faces' SQL (migration 0012), org-scoped. */
export interface ReferenceFaceStore {
  /** The entity's assets in the order they were added (any collection); undefined when the organization has no such entity. */
  entityAssets(orgId: string, entityId: string): Promise<ReferenceAssetFile[] | undefined>;
  /** The stored faces of these assets made by `model`. */
  faces(orgId: string, assetIds: readonly string[], model: string): Promise<Map<string, StoredReferenceFace>>;
  /** Keeps an asset's face (replacing one another model made). */
  save(orgId: string, face: StoredReferenceFace, now: Date): Promise<void>;
}

export function createReferenceFaceStore(db: Database): ReferenceFaceStore {
  return {
    async entityAssets(orgId, entityId) {
      const entity = await db.query('SELECT 1 FROM entities WHERE org_id = $1 AND id = $2', [orgId, entityId]);
      if (entity.rows.length === 0) return undefined;
      const { rows } = await db.query<{ asset_id: string; status: string; blob_key: string | null; size: string | number | null }>(
        `SELECT ea.asset_id, a.status, a.blob_key, a.size FROM entity_assets ea JOIN assets a ON a.id = ea.asset_id AND a.org_id = $1
         WHERE ea.entity_id = $2 ORDER BY ea.position`,
        [orgId, entityId],
      );
      return rows.map((r) => ({
        assetId: r.asset_id,
        ready: r.status === 'ready' && r.blob_key !== null,
        blobKey: r.blob_key,
        size: r.size === null ? null : Number(r.size),
      }));
    },

    async faces(orgId, assetIds, model) {
      if (assetIds.length === 0) return new Map();
      const { rows } = await db.query<{ asset_id: string; embedding: number[] | null; faces: number; model: string }>(
        'SELECT asset_id, embedding, faces, model FROM asset_reference_faces WHERE org_id = $1 AND asset_id = ANY($2::text[]) AND model = $3',
        [orgId, assetIds, model],
      );
      return new Map(
        rows.map((r) => [
          r.asset_id,
          { assetId: r.asset_id, embedding: r.embedding && Float32Array.from(r.embedding), faces: r.faces, model: r.model },
        ]),
      );
    },

    async save(orgId, face, now) {
      await db.query(
        `INSERT INTO asset_reference_faces (asset_id, org_id, embedding, faces, model, created_at)
         VALUES ($1, $2, CASE WHEN $3::jsonb IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text($3::jsonb)::real) END, $4, $5, $6)
         ON CONFLICT (asset_id) DO UPDATE SET embedding = EXCLUDED.embedding, faces = EXCLUDED.faces, model = EXCLUDED.model,
           created_at = EXCLUDED.created_at`,
        [face.assetId, orgId, face.embedding && JSON.stringify(Array.from(face.embedding)), face.faces, face.model, now],
      );
    },
  };
}

-- Up Migration
-- Knowledge stores (issue 33): named sets of an organization's assets, each added as an item that
-- search and responses answer over. They live here, beside the assets their items are made of and
-- the indexing pipeline that processes them (task-service owns both): an item's asset is checked
-- in one database, and deleting an asset removes its items (ON DELETE CASCADE).
CREATE TABLE knowledge_stores (
  id                 text PRIMARY KEY,
  org_id             text NOT NULL,
  name               text NOT NULL,
  description        text NOT NULL DEFAULT '',
  -- ingestion_config.enrichment_config as given at creation (immutable); null when none.
  enrichment_config  jsonb,
  metadata           jsonb NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX knowledge_stores_org ON knowledge_stores (org_id, created_at DESC, id);

CREATE TABLE knowledge_store_items (
  id                  text PRIMARY KEY,
  org_id              text NOT NULL,
  knowledge_store_id  text NOT NULL REFERENCES knowledge_stores (id) ON DELETE CASCADE,
  asset_id            text NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
  asset_type          text NOT NULL CHECK (asset_type IN ('video', 'image')),
  status              text NOT NULL CHECK (status IN ('queued', 'pending', 'processing', 'ready', 'failed')),
  metadata            jsonb NOT NULL DEFAULT '{}',
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  -- One item per asset in a store.
  UNIQUE (knowledge_store_id, asset_id)
);
CREATE INDEX knowledge_store_items_store ON knowledge_store_items (knowledge_store_id, created_at DESC, id);
CREATE INDEX knowledge_store_items_asset ON knowledge_store_items (asset_id);

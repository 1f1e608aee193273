-- Up Migration
-- Entity collections and entities (issue 32): people or things an organization names, each shown by
-- ready image assets, found in videos by query_text's <@entity_id>. They live here, beside the
-- assets they reference (task-service owns assets): an entity's assets are checked and listed by
-- asset in one database, and deleting an asset unlinks it from its entities (ON DELETE CASCADE).
CREATE TABLE entity_collections (
  id           text PRIMARY KEY,
  org_id       text NOT NULL,
  name         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE INDEX entity_collections_org ON entity_collections (org_id, created_at DESC, id);

CREATE TABLE entities (
  id             text PRIMARY KEY,
  org_id         text NOT NULL,
  collection_id  text NOT NULL REFERENCES entity_collections (id) ON DELETE CASCADE,
  name           text NOT NULL,
  description    text NOT NULL DEFAULT '',
  -- string, number or boolean values by key.
  metadata       jsonb NOT NULL DEFAULT '{}',
  -- processing while its reference images are being embedded; ready to be searched.
  status         text NOT NULL CHECK (status IN ('processing', 'ready')),
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX entities_collection ON entities (collection_id, created_at DESC, id);

-- An entity's reference images; `position` keeps asset_ids in the order they were added.
CREATE TABLE entity_assets (
  entity_id  text NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  asset_id   text NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
  position   integer NOT NULL,
  PRIMARY KEY (entity_id, asset_id)
);
CREATE INDEX entity_assets_asset ON entity_assets (asset_id);

-- Up Migration
CREATE TABLE indexes (
  id             text PRIMARY KEY,
  org_id         text NOT NULL,
  name           text NOT NULL,
  -- [{ "name": "marengo2.6", "options": ["visual", ...] }], canonical option vocabulary
  models         jsonb NOT NULL,
  -- Derived from models, for filtering without unpacking JSON.
  model_names    text[] NOT NULL,
  families       text[] NOT NULL,
  options        text[] NOT NULL,
  addons         text[] NOT NULL DEFAULT '{}',
  video_count    integer NOT NULL DEFAULT 0,
  total_duration double precision NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  expires_at     timestamptz
);

-- Names are unique per organization.
CREATE UNIQUE INDEX indexes_org_name ON indexes (org_id, name);
CREATE INDEX indexes_org_created ON indexes (org_id, created_at DESC, id);

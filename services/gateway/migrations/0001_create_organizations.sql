-- Up Migration
CREATE TABLE organizations (
  id         text PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL
);

-- Keys are stored as SHA-256 digests: they are 192-bit random secrets, so a fast digest is
-- enough and lets the gateway look a key up by its hash. `prefix` identifies a key to people.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  org_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  key_hash     text NOT NULL UNIQUE,
  prefix       text NOT NULL,
  name         text,
  created_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

-- Up Migration
-- Assets (API-CONTRACT §5.9): uploaded or linked media kept by the organization, to be indexed
-- into any of its indexes later (indexed assets). The file lives in the blob store under blob_key.
CREATE TABLE assets (
  id               text PRIMARY KEY,
  org_id           text NOT NULL,
  method           text NOT NULL CHECK (method IN ('direct', 'url', 'multipart')),
  status           text NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  filename         text NOT NULL,
  -- video | audio | image once sniffed from the content; null until then.
  file_type        text CHECK (file_type IN ('video', 'audio', 'image')),
  -- The sniffed MIME type (video/mp4, image/png …).
  mime_type        text,
  source_url       text,
  -- Null while a URL or multipart upload has not arrived yet.
  blob_key         text,
  size             bigint,
  duration         double precision,
  width            integer,
  height           integer,
  fps              double precision,
  failure_code     text,
  failure_message  text,
  idempotency_key  text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE UNIQUE INDEX assets_idempotency ON assets (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX assets_org_created ON assets (org_id, created_at DESC, id);
CREATE INDEX assets_blob_key ON assets (blob_key) WHERE blob_key IS NOT NULL;

-- A multipart upload: the client PUTs chunks to signed URLs, then reports them; once every chunk
-- is reported the chunks are joined into the asset's file.
CREATE TABLE multipart_uploads (
  id            text PRIMARY KEY,
  org_id        text NOT NULL,
  asset_id      text NOT NULL REFERENCES assets (id) ON DELETE CASCADE,
  status        text NOT NULL CHECK (status IN ('active', 'completed', 'failed', 'expired')),
  total_size    bigint NOT NULL,
  chunk_size    bigint NOT NULL,
  total_chunks  integer NOT NULL,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE INDEX multipart_uploads_org ON multipart_uploads (org_id, created_at DESC, id);

-- One chunk received (stored: its bytes are in the blob store) and, once the client reported it
-- with the right proof, completed.
CREATE TABLE multipart_upload_chunks (
  upload_id    text NOT NULL REFERENCES multipart_uploads (id) ON DELETE CASCADE,
  chunk_index  integer NOT NULL,
  status       text NOT NULL CHECK (status IN ('stored', 'completed')),
  size         bigint NOT NULL,
  etag         text NOT NULL,
  blob_key     text NOT NULL,
  uploaded_at  timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  PRIMARY KEY (upload_id, chunk_index)
);

-- An indexing task made from an asset (an indexed asset: its id is the task's video id).
ALTER TABLE tasks ADD COLUMN asset_id text;
CREATE INDEX tasks_asset ON tasks (org_id, asset_id) WHERE asset_id IS NOT NULL;

-- Up Migration
-- Indexing tasks: one uploaded or linked video on its way to becoming a video of an index.
CREATE TABLE tasks (
  id                     text PRIMARY KEY,
  org_id                 text NOT NULL,
  index_id               text NOT NULL,
  -- Chosen at creation; the worker creates the video under this id, so a retried task can
  -- never make a second video.
  video_id               text NOT NULL UNIQUE,
  status                 text NOT NULL CHECK (status IN ('uploading', 'validating', 'pending', 'queued', 'indexing', 'ready', 'failed')),
  -- Exactly one source: an upload stored by the gateway, or a URL fetched by the worker.
  source_kind            text NOT NULL CHECK (source_kind IN ('upload', 'url')),
  video_url              text,
  -- The stored media: the upload, or the copy of video_url once fetched.
  media_blob_key         text,
  transcription_kind     text CHECK (transcription_kind IN ('upload', 'url')),
  transcription_ref      text,
  language               text,
  enable_video_stream    boolean NOT NULL DEFAULT true,
  user_metadata          jsonb NOT NULL DEFAULT '{}',
  filename               text NOT NULL,
  -- What the probe found (null until validated).
  duration               double precision,
  fps                    double precision,
  width                  integer,
  height                 integer,
  size                   bigint,
  progress               double precision NOT NULL DEFAULT 0,
  -- Once indexed: the extractors that ran, and those skipped with their reason [{name, reason}].
  extractors_run         text[] NOT NULL DEFAULT '{}',
  extractors_skipped     jsonb NOT NULL DEFAULT '[]',
  failure_code           text,
  failure_message        text,
  idempotency_key        text,
  -- The worker's lease: who works on the task and until when (see src/tasks/leases.ts).
  lease_owner            text,
  lease_expires_at       timestamptz,
  attempts               integer NOT NULL DEFAULT 0,
  media_reserved         boolean NOT NULL DEFAULT false,
  created_at             timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL
);
CREATE UNIQUE INDEX tasks_idempotency ON tasks (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX tasks_org_created ON tasks (org_id, created_at DESC, id);
CREATE INDEX tasks_org_index_status ON tasks (org_id, index_id, status);
-- What workers scan when they look for work.
CREATE INDEX tasks_active ON tasks (created_at, id) WHERE status NOT IN ('ready', 'failed');

-- Every status a task has been in, oldest first.
CREATE TABLE task_status_history (
  task_id  text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  position integer NOT NULL,
  status   text NOT NULL,
  at       timestamptz NOT NULL,
  PRIMARY KEY (task_id, position)
);

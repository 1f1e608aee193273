-- Video embed tasks: what was asked, their status, and their vectors once ready (kept 7 days).
CREATE TABLE embed_tasks (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  model_name TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  error_message TEXT,
  -- The SDKs replay a POST after a 5xx or 429: the same key gives the same task.
  idempotency_key TEXT,
  source JSONB NOT NULL,
  options JSONB NOT NULL,
  result JSONB,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX embed_tasks_idempotency ON embed_tasks (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX embed_tasks_org_created ON embed_tasks (org_id, created_at DESC);
CREATE INDEX embed_tasks_expires ON embed_tasks (expires_at);

-- One row per synchronous embedding served: what billing and usage reports count (requests, seconds of media).
CREATE TABLE embedding_usage (
  id BIGSERIAL PRIMARY KEY,
  org_id TEXT NOT NULL,
  model_name TEXT NOT NULL,
  input_type TEXT NOT NULL,
  media_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX embedding_usage_org_created ON embedding_usage (org_id, created_at);

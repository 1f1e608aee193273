-- Up Migration
-- Asynchronous analysis (/analyze/tasks, /analyze/batches): a batch is a set of tasks made with the
-- same mode and model; each task is one analysis run by the job queue (libs/jobs, kind
-- analyze-task). A batch's status and counts follow from its tasks (async-rules.ts batchStatus);
-- the batch row adds what its tasks cannot say: a cancel asked, when it expires, when it ended.
CREATE TABLE analyze_batches (
  id                text PRIMARY KEY,
  org_id            text NOT NULL,
  model_name        text NOT NULL,
  analysis_mode     text NOT NULL CHECK (analysis_mode IN ('general', 'time_based_metadata')),
  total_items       integer NOT NULL CHECK (total_items > 0),
  -- Written from its tasks' statuses after each change of one (async-rules.ts batchStatus), so lists filter on it.
  status            text NOT NULL CHECK (status IN ('pending', 'processing', 'canceling', 'canceled', 'completed', 'expired')),
  cancel_requested  boolean NOT NULL DEFAULT false,
  -- Its 24 hours ran out before every item ended: the queued ones were canceled.
  expired           boolean NOT NULL DEFAULT false,
  -- Set once, when the last item ended (completed_at, canceled_at or expired_at on the wire by status).
  ended_at          timestamptz,
  created_at        timestamptz NOT NULL,
  expires_at        timestamptz NOT NULL
);
CREATE INDEX analyze_batches_org_created ON analyze_batches (org_id, created_at DESC, id DESC);
-- The expiry sweep's and the active-batch limit's scan: batches not ended yet.
CREATE INDEX analyze_batches_open ON analyze_batches (expires_at) WHERE ended_at IS NULL;

CREATE TABLE analyze_tasks (
  id              text PRIMARY KEY,
  org_id          text NOT NULL,
  -- A batch's tasks go with it (DELETE /analyze/batches/{id}).
  batch_id        text REFERENCES analyze_batches (id) ON DELETE CASCADE,
  -- Its place in the batch's requests: results come back in that order.
  position        integer NOT NULL DEFAULT 0,
  custom_id       text NOT NULL DEFAULT '',
  video_id        text NOT NULL,
  analysis_mode   text NOT NULL CHECK (analysis_mode IN ('general', 'time_based_metadata')),
  -- The checked request (async-spec.ts TaskSpec), shown back as request_params and read by the run.
  spec            jsonb NOT NULL,
  status          text NOT NULL CHECK (status IN ('queued', 'pending', 'processing', 'ready', 'failed', 'canceled')),
  generation_id   text,
  data            text,
  finish_reason   text CHECK (finish_reason IN ('stop', 'length')),
  output_tokens   integer CHECK (output_tokens >= 0),
  -- Failed: why. Ready and cut at max_tokens: the truncation notice.
  message         text,
  video_duration  double precision,
  created_at      timestamptz NOT NULL,
  completed_at    timestamptz
);
CREATE INDEX analyze_tasks_org_created ON analyze_tasks (org_id, created_at DESC, id DESC);
CREATE INDEX analyze_tasks_batch ON analyze_tasks (batch_id, position) WHERE batch_id IS NOT NULL;

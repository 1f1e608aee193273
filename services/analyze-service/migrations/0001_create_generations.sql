-- Up Migration
-- One row per generation (gist, summary, chapters, highlights, open prompt): what was asked, what
-- was produced, by which provider, and its output tokens (what the gateway meters and billing is
-- told). A cancelled stream keeps what it produced before the caller went away.
CREATE TABLE generations (
  id             uuid PRIMARY KEY,
  org_id         text NOT NULL,
  video_id       text NOT NULL,
  index_id       text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('gist', 'summary', 'chapter', 'highlight', 'analyze')),
  provider       text NOT NULL,
  prompt         text NOT NULL,
  output         text NOT NULL,
  output_tokens  integer NOT NULL CHECK (output_tokens >= 0),
  finish_reason  text NOT NULL CHECK (finish_reason IN ('stop', 'length', '')),
  status         text NOT NULL CHECK (status IN ('completed', 'cancelled', 'failed')),
  created_at     timestamptz NOT NULL
);
CREATE INDEX generations_org_created ON generations (org_id, created_at DESC);

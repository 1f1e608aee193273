-- Up Migration
-- A classification's whole ranked list (videos with their class scores), kept so that later pages
-- are served from it by token, like search-service's result sets. Unlogged: a result set is a
-- cache of one request, and a crash only makes its tokens read as expired.
CREATE UNLOGGED TABLE result_sets (
  id          uuid PRIMARY KEY,
  org_id      text NOT NULL,
  page_limit  integer NOT NULL CHECK (page_limit BETWEEN 1 AND 50),
  items       jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX result_sets_expires ON result_sets (expires_at);

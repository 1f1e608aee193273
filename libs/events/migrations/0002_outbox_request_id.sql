-- Up Migration
-- The request an event was written for (x-request-id), so that its consumers' calls carry it too.
ALTER TABLE outbox ADD COLUMN request_id text;

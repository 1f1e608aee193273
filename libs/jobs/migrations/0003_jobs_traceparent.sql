-- Up Migration
-- The trace context of the request that queued a job, so that the job's span joins its trace.
ALTER TABLE jobs ADD COLUMN traceparent text;

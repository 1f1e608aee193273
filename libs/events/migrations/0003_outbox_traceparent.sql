-- Up Migration
-- The trace context of the span that wrote an event, so that its consumers' spans join the trace.
ALTER TABLE outbox ADD COLUMN traceparent text;

-- Up Migration
-- Webhook endpoints an organization registered. The signing secret is kept as given to the client
-- (HMAC needs it); it is returned once, at creation.
CREATE TABLE webhook_endpoints (
  id          text PRIMARY KEY,
  org_id      text NOT NULL,
  url         text NOT NULL,
  -- Webhook event types (index.task.ready, index.task.failed, index.task.status_changed).
  event_types text[] NOT NULL,
  secret      text NOT NULL,
  created_at  timestamptz NOT NULL,
  -- Deleting keeps the row (its deliveries refer to it) and stops its pending deliveries.
  deleted_at  timestamptz
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, created_at DESC, id) WHERE deleted_at IS NULL;

-- One event to send to one endpoint, and what happened so far. `id` is the delivery id that
-- receivers dedupe on: it never changes across attempts.
CREATE TABLE webhook_deliveries (
  id                   text PRIMARY KEY,
  endpoint_id          text NOT NULL REFERENCES webhook_endpoints (id),
  org_id               text NOT NULL,
  event_id             text NOT NULL,
  event_type           text NOT NULL,
  -- The JSON body sent on every attempt (byte-identical, so signatures are reproducible).
  body                 text NOT NULL,
  status               text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts             integer NOT NULL DEFAULT 0,
  last_response_status integer NOT NULL DEFAULT 0,
  last_error           text NOT NULL DEFAULT '',
  next_attempt_at      timestamptz,
  -- A dispatcher holds a delivery until then; if it dies mid-flight, another takes it afterwards.
  lease_until          timestamptz,
  created_at           timestamptz NOT NULL,
  delivered_at         timestamptz,
  UNIQUE (endpoint_id, event_id, event_type)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id);

-- Up Migration
-- Transactional outbox: a service writes its events here in the same transaction as the state
-- change; the relay publishes them in `seq` order and marks them sent.
CREATE TABLE outbox (
  seq          bigserial PRIMARY KEY,
  id           text NOT NULL UNIQUE,
  topic        text NOT NULL,
  key          text NOT NULL,
  type         text NOT NULL,
  org_id       text,
  payload      jsonb NOT NULL,
  occurred_at  timestamptz NOT NULL,
  published_at timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

-- Events a consumer of this service has handled, so redelivery does nothing twice.
CREATE TABLE handled_events (
  consumer   text NOT NULL,
  event_id   text NOT NULL,
  handled_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

-- Up Migration

-- Media minutes reserved against an organization's duration budgets (ReserveUsage), by the key of
-- the usage event that reports them later: that event's consumption then debits nothing twice.
CREATE TABLE usage_reservations (
  org_id           text NOT NULL,
  idempotency_key  text NOT NULL,
  category         text NOT NULL,
  seconds          double precision NOT NULL,
  reserved_at      timestamptz NOT NULL,
  PRIMARY KEY (org_id, idempotency_key)
);

-- Down Migration
DROP TABLE usage_reservations;

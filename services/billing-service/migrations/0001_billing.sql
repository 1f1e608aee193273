-- Up Migration

-- One row per organization that billing has heard of; absent means Free with no history.
CREATE TABLE plans (
  org_id              text PRIMARY KEY,
  plan                text NOT NULL CHECK (plan IN ('free', 'developer', 'enterprise')),
  tier                integer NOT NULL DEFAULT 0,
  -- The YYYY-MM that is a grace month (the month before it ended below the tier's threshold).
  grace_month         text,
  payment_method_ref  text,
  billing_email       text,
  -- Enterprise only: [{ "category", "dimension", "limit" }]; absent pairs are unlimited.
  custom_limits       jsonb,
  -- The last YYYY-MM the month-end job has closed for this organization.
  closed_through      text NOT NULL,
  updated_at          timestamptz NOT NULL
);

-- The spend ledger: one row per metered event, idempotent by its key.
CREATE TABLE spend_entries (
  org_id           text NOT NULL,
  idempotency_key  text NOT NULL,
  unit_kind        text NOT NULL,
  quantity         bigint NOT NULL,
  amount_micros    bigint NOT NULL,
  occurred_at      timestamptz NOT NULL,
  month            text NOT NULL,
  recorded_at      timestamptz NOT NULL,
  PRIMARY KEY (org_id, idempotency_key)
);
CREATE INDEX spend_entries_org_month ON spend_entries (org_id, month);

-- What each month-end did, one row per organization and month (the job's idempotence record).
CREATE TABLE month_closings (
  org_id        text NOT NULL,
  month         text NOT NULL,
  spend_micros  bigint NOT NULL,
  from_plan     text NOT NULL,
  from_tier     integer NOT NULL,
  to_plan       text NOT NULL,
  to_tier       integer NOT NULL,
  reason        text,
  closed_at     timestamptz NOT NULL,
  PRIMARY KEY (org_id, month)
);

-- The e-mail outbox: written in the same transaction as the plan change, sent by the mailer.
CREATE TABLE notifications (
  id          text PRIMARY KEY,
  seq         bigserial UNIQUE,
  org_id      text NOT NULL,
  kind        text NOT NULL,
  recipient   text NOT NULL,
  subject     text NOT NULL,
  body        text NOT NULL,
  created_at  timestamptz NOT NULL,
  sent_at     timestamptz,
  attempts    integer NOT NULL DEFAULT 0,
  last_error  text,
  next_attempt_at timestamptz NOT NULL
);
CREATE INDEX notifications_unsent ON notifications (next_attempt_at) WHERE sent_at IS NULL;

-- Up Migration
-- The job queue (libs/jobs): one row per background job of this service's database. The job
-- schedules and leases the work; what the work is about stays in the domain's own row
-- (`subject_id`: a task, a webhook delivery, an e-mail), which is written under the job's lease.
CREATE TABLE jobs (
  id                text PRIMARY KEY,
  -- What kind of work, and on which domain row: at most one job per (kind, subject).
  kind              text NOT NULL,
  subject_id        text NOT NULL,
  -- Fairness group: claims prefer the organization with the fewest running jobs.
  org_id            text NOT NULL,
  payload           jsonb NOT NULL DEFAULT '{}',
  state             text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  -- Claims so far (each crash of a worker costs one); the kind's runner says how many are allowed.
  attempts          integer NOT NULL DEFAULT 0,
  -- Not claimed before then (set by retries).
  run_at            timestamptz NOT NULL,
  -- The worker that holds the job, until when; a running job whose lease expired may be taken over.
  lease_owner       text,
  lease_expires_at  timestamptz,
  last_error        text,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  UNIQUE (kind, subject_id)
);
-- What claims scan: unfinished jobs by due time, and the running ones per organization.
CREATE INDEX jobs_due ON jobs (kind, run_at, id) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_running ON jobs (kind, org_id) WHERE state = 'running';

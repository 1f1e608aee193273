-- Up Migration
-- Claims walk the organizations that have unfinished jobs (a skip scan over this index) and take
-- each one's first due job, instead of sorting every due job: one organization's large backlog
-- costs a claim a few index probes, not a sort of the backlog.
CREATE INDEX jobs_org_due ON jobs (kind, org_id, run_at, id) WHERE state IN ('queued', 'running');
DROP INDEX jobs_due;

-- Up Migration
-- Tasks are carried through the worker by jobs of the shared job queue (libs/jobs, migrated before
-- this): the lease, the attempts and the retry time move from the task to its 'index-task' job.
-- Each unfinished task gets its job here: leased ones stay leased to their worker (which keeps
-- writing under the lease), released ones wait for their retry time.
INSERT INTO jobs (id, kind, subject_id, org_id, state, attempts, run_at, lease_owner, lease_expires_at, created_at, updated_at)
SELECT substr(md5('index-task:' || t.id), 1, 24), 'index-task', t.id, t.org_id,
       CASE WHEN t.lease_owner IS NULL THEN 'queued' ELSE 'running' END,
       t.attempts,
       CASE WHEN t.lease_owner IS NULL AND t.lease_expires_at IS NOT NULL THEN t.lease_expires_at ELSE t.created_at END,
       t.lease_owner,
       CASE WHEN t.lease_owner IS NULL THEN NULL ELSE t.lease_expires_at END,
       t.created_at, t.updated_at
FROM tasks t
WHERE t.status NOT IN ('ready', 'failed')
ON CONFLICT (kind, subject_id) DO NOTHING;

ALTER TABLE tasks DROP COLUMN lease_owner, DROP COLUMN lease_expires_at, DROP COLUMN attempts;
-- Workers no longer scan tasks for work (they claim jobs).
DROP INDEX tasks_active;

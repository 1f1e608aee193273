-- Up Migration
-- E-mails of the outbox are sent by jobs of the shared job queue (libs/jobs, migrated before this):
-- each unsent e-mail gets its job, due when its next attempt was; the queue now picks what is due.
INSERT INTO jobs (id, kind, subject_id, org_id, state, attempts, run_at, created_at, updated_at)
SELECT substr(md5('billing-mail:' || n.id), 1, 24), 'billing-mail', n.id, n.org_id, 'queued', n.attempts,
       n.next_attempt_at, n.created_at, n.created_at
FROM notifications n
WHERE n.sent_at IS NULL
ON CONFLICT (kind, subject_id) DO NOTHING;

DROP INDEX notifications_unsent;

-- Up Migration
-- Webhook deliveries are sent by jobs of the shared job queue (libs/jobs): the queue leases and
-- retries them, so the delivery keeps only what happened (status, attempts, last answer, next
-- attempt shown to the API). Each pending delivery gets its job, due when its next attempt was.
INSERT INTO jobs (id, kind, subject_id, org_id, state, attempts, run_at, created_at, updated_at)
SELECT substr(md5('webhook-delivery:' || d.id), 1, 24), 'webhook-delivery', d.id, d.org_id, 'queued', d.attempts,
       coalesce(d.next_attempt_at, d.created_at), d.created_at, d.created_at
FROM webhook_deliveries d
WHERE d.status = 'pending'
ON CONFLICT (kind, subject_id) DO NOTHING;

ALTER TABLE webhook_deliveries DROP COLUMN lease_until;
DROP INDEX webhook_deliveries_due;

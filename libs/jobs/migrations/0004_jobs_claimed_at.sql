-- Up Migration
-- When each job was last claimed: claims give the next turn to the organization served longest
-- ago (round robin between organizations, rules.ts nextToClaim), not to whichever job is due first,
-- so one organization's backlog does not make another's single job wait behind all of it.
ALTER TABLE jobs ADD COLUMN claimed_at timestamptz;
-- An organization's last claim of a kind: one probe of this index per organization (partial: the
-- many queued jobs never claimed are not in it).
CREATE INDEX jobs_org_claimed ON jobs (kind, org_id, claimed_at) WHERE claimed_at IS NOT NULL;

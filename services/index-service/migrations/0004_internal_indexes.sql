-- Up Migration
-- Internal indexes (issue 33): a knowledge store's items are indexed into an index of its own,
-- made by task-service. Users never see it: ListIndexes leaves it out and the gateway answers its
-- id as unknown. Its name is unique among internal ones only, so it never takes
-- or collides with a name a user chose.
ALTER TABLE indexes ADD COLUMN internal boolean NOT NULL DEFAULT false;
DROP INDEX indexes_org_name;
CREATE UNIQUE INDEX indexes_org_name ON indexes (org_id, name) WHERE NOT internal;
CREATE UNIQUE INDEX indexes_internal_name ON indexes (org_id, name) WHERE internal;

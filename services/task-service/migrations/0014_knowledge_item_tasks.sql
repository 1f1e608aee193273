-- Up Migration
-- Knowledge-store items are processed by the indexing pipeline (issue 33): each store has an
-- internal index in index-service (made at its first item; hidden from the indexes API), and each
-- item an indexing task into it. The item's status is read from its task (a join), so it never
-- drifts from the pipeline's; items.status stays for an item that has no task (yet).
ALTER TABLE knowledge_stores ADD COLUMN index_id text;
-- A task deleted under an item (never by the API: item tasks are not listed) leaves the item without one.
ALTER TABLE knowledge_store_items ADD COLUMN task_id text REFERENCES tasks (id) ON DELETE SET NULL;
-- One item per task; also how task lists and asset references leave item tasks out (NOT EXISTS by task).
CREATE UNIQUE INDEX knowledge_store_items_task ON knowledge_store_items (task_id) WHERE task_id IS NOT NULL;

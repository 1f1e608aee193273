-- Up Migration
-- A knowledge store is found by its internal index (issue 33): webhook fan-out asks of each
-- task event whether its index is a store's (webhooks/store.ts isKnowledgeStoreIndex), and task
-- lists leave out tasks into a store's index (tasks/store.ts INTO_A_KNOWLEDGE_STORE). Without
-- this index each such lookup read every store. Stores without an index yet (no item) are left out.
CREATE INDEX knowledge_stores_index ON knowledge_stores (index_id) WHERE index_id IS NOT NULL;

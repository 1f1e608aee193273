-- Up Migration
-- Item collections of a knowledge store (issue 33; twelvelabs-js 1.3.4 knowledgeStoreItemCollections):
-- named subsets of a store's items. A collection never owns its items: deleting a collection, or
-- removing items from it, leaves them in the store. Deleting a store removes its collections, and
-- deleting an item (or its asset, which removes the item) removes its memberships (ON DELETE CASCADE).
CREATE TABLE knowledge_store_item_collections (
  id                  text PRIMARY KEY,
  org_id              text NOT NULL,
  knowledge_store_id  text NOT NULL REFERENCES knowledge_stores (id) ON DELETE CASCADE,
  name                text NOT NULL,
  description         text NOT NULL DEFAULT '',
  metadata            jsonb NOT NULL DEFAULT '{}',
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  -- The reference: a name is unique within the knowledge store.
  CONSTRAINT knowledge_store_item_collections_name UNIQUE (knowledge_store_id, name)
);
CREATE INDEX knowledge_store_item_collections_store ON knowledge_store_item_collections (knowledge_store_id, created_at DESC, id);

CREATE TABLE knowledge_store_item_collection_members (
  collection_id  text NOT NULL REFERENCES knowledge_store_item_collections (id) ON DELETE CASCADE,
  item_id        text NOT NULL REFERENCES knowledge_store_items (id) ON DELETE CASCADE,
  -- Members list in the order they were added (a request's ids in their order).
  position       bigserial NOT NULL,
  added_at       timestamptz NOT NULL,
  PRIMARY KEY (collection_id, item_id)
);
CREATE INDEX knowledge_store_item_collection_members_order ON knowledge_store_item_collection_members (collection_id, position);
-- The cascade from a deleted item finds its memberships by item.
CREATE INDEX knowledge_store_item_collection_members_item ON knowledge_store_item_collection_members (item_id);

-- Up Migration
-- Image-space vectors (CLIP) of visual segments, in pgvector. PostgreSQL without the extension
-- (Debian's packages) still serves lexical search: the table is then not created and
-- search-service says at start that vector retrieval is off. The Helm chart's and compose's
-- PostgreSQL images carry pgvector; embedded mode loads it into PGlite.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE segment_vectors (
      segment_id bigint PRIMARY KEY REFERENCES segments (id) ON DELETE CASCADE,
      org_id     text NOT NULL,
      index_id   text NOT NULL,
      model      text NOT NULL,
      dimensions integer NOT NULL,
      embedding  vector NOT NULL
    );
    CREATE INDEX segment_vectors_index ON segment_vectors (org_id, index_id, model);
    -- HNSW needs a fixed dimension: one partial index for CLIP ViT-B/32's 512.
    CREATE INDEX segment_vectors_hnsw_512 ON segment_vectors
      USING hnsw ((embedding::vector(512)) vector_cosine_ops) WHERE dimensions = 512;
  ELSE
    RAISE NOTICE 'pgvector is not installed: search-service stores no vectors';
  END IF;
END
$$;

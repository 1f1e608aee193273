-- Up Migration
-- Issue 31. search-service keeps an in-process copy of an index's searchable words (src/resident/)
-- and must learn of every change to its segments, made by any replica. Each change of a video's
-- segments (ingest, delete, its index deleted) takes the index's next generation, in the
-- writer's transaction, and records it on the video; a replica asks for the videos changed after
-- the generation it holds. Writers of one index queue on its generation row until they commit, so
-- generations become visible in order and none is passed over.
CREATE TABLE index_generations (
  org_id     text NOT NULL,
  index_id   text NOT NULL,
  generation bigint NOT NULL,
  PRIMARY KEY (org_id, index_id)
);
CREATE TABLE video_generations (
  org_id     text NOT NULL,
  index_id   text NOT NULL,
  video_id   text NOT NULL,
  generation bigint NOT NULL,
  PRIMARY KEY (org_id, index_id, video_id)
);
CREATE INDEX video_generations_since ON video_generations (org_id, index_id, generation);
INSERT INTO index_generations (org_id, index_id, generation) SELECT DISTINCT org_id, index_id, 1 FROM segments;
INSERT INTO video_generations (org_id, index_id, video_id, generation) SELECT DISTINCT org_id, index_id, video_id, 1 FROM segments;


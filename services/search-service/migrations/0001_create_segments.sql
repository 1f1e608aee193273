-- Up Migration
-- Searchable stretches of indexed videos, written by the indexing worker (IngestSegments replaces
-- a video's rows). Lexical retrieval runs on two text search vectors computed at insert:
--   doc:   'english' (stemmed) over the text and labels at weight A, and over the labels' WordNet
--          synonyms and hypernyms at weight B, for semantic matches ("automobile" finds car);
--   words: 'simple' (unstemmed) over the text, for exact_match (the words as spoken).
CREATE TABLE segments (
  id            bigserial PRIMARY KEY,
  org_id        text NOT NULL,
  index_id      text NOT NULL,
  video_id      text NOT NULL,
  modality      text NOT NULL CHECK (modality IN ('visual', 'conversation', 'text_in_video', 'logo')),
  start_sec     double precision NOT NULL,
  end_sec       double precision NOT NULL CHECK (end_sec >= start_sec),
  text          text NOT NULL DEFAULT '',
  labels        text[] NOT NULL DEFAULT '{}',
  thumbnail_key text NOT NULL DEFAULT '',
  doc           tsvector NOT NULL,
  words         tsvector NOT NULL
);
CREATE INDEX segments_video ON segments (org_id, index_id, video_id);
CREATE INDEX segments_doc ON segments USING gin (doc);
CREATE INDEX segments_words ON segments USING gin (words);

-- Result sets of searches: the whole ranked list is kept so that later pages are stable; a token
-- `<set id>-<page>` reads a page until the set expires.
CREATE TABLE result_sets (
  id          uuid PRIMARY KEY,
  org_id      text NOT NULL,
  index_id    text NOT NULL,
  group_by    text NOT NULL CHECK (group_by IN ('clip', 'video')),
  page_limit  integer NOT NULL CHECK (page_limit BETWEEN 1 AND 50),
  items       jsonb NOT NULL,
  total_results integer NOT NULL,
  total_inner_matches integer NOT NULL,
  search_pool jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX result_sets_expires ON result_sets (expires_at);

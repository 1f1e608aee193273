-- Up Migration
-- Issue 23. An index's vocabulary: the distinct plain words said or shown in its videos (the
-- `words` column: conversation, on-screen text, logos). A query word's nearest words by word
-- vectors are looked for among these (src/semantic.ts). Words are added at ingest and never
-- removed with a video: a stale word only costs one alternative that matches nothing.
CREATE TABLE index_words (
  org_id   text NOT NULL,
  index_id text NOT NULL,
  word     text NOT NULL,
  PRIMARY KEY (org_id, index_id, word)
);
INSERT INTO index_words (org_id, index_id, word)
SELECT DISTINCT s.org_id, s.index_id, w.word
FROM segments s, unnest(tsvector_to_array(s.words)) AS w(word)
WHERE s.modality <> 'visual' AND w.word ~ '^[a-z]{3,}$'
ON CONFLICT DO NOTHING;

-- A line of speech is evidence that someone talks: conversation segments carry these words as
-- broader terms (weight B, an expanded match), as ingest now writes them (ingest.ts SPEECH_TERMS).
UPDATE segments SET doc = doc || setweight(to_tsvector('english', 'talk speak speech conversation'), 'B')
WHERE modality = 'conversation';

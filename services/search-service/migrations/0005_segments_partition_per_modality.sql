-- Up Migration
-- Every search option reads one modality. A partition per modality gives each its own statistics
-- (a word common in visual labels can be rare in speech: with one table's statistics the planner
-- misjudged such words and scanned 55k rows for a pool of 1,000 on the benchmark), and lets a
-- sequential scan for a common word read that modality's rows only. The primary key must hold the
-- partition key, so vectors now name their segment by (id, modality).
ALTER SEQUENCE segments_id_seq OWNED BY NONE;
ALTER TABLE segments RENAME TO segments_unpartitioned;

CREATE TABLE segments (
  id            bigint NOT NULL DEFAULT nextval('segments_id_seq'),
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
  words         tsvector NOT NULL,
  PRIMARY KEY (id, modality)
) PARTITION BY LIST (modality);
CREATE TABLE segments_visual PARTITION OF segments FOR VALUES IN ('visual');
CREATE TABLE segments_conversation PARTITION OF segments FOR VALUES IN ('conversation');
CREATE TABLE segments_text_in_video PARTITION OF segments FOR VALUES IN ('text_in_video');
CREATE TABLE segments_logo PARTITION OF segments FOR VALUES IN ('logo');
ALTER SEQUENCE segments_id_seq OWNED BY segments.id;

INSERT INTO segments SELECT id, org_id, index_id, video_id, modality, start_sec, end_sec, text, labels, thumbnail_key, doc, words
FROM segments_unpartitioned;

DO $$
BEGIN
  IF to_regclass('segment_vectors') IS NOT NULL THEN
    ALTER TABLE segment_vectors DROP CONSTRAINT segment_vectors_segment_id_fkey;
    ALTER TABLE segment_vectors ADD COLUMN modality text;
    UPDATE segment_vectors v SET modality = s.modality FROM segments_unpartitioned s WHERE s.id = v.segment_id;
    ALTER TABLE segment_vectors ALTER COLUMN modality SET NOT NULL;
  END IF;
END
$$;
DROP TABLE segments_unpartitioned;

CREATE INDEX segments_video ON segments (org_id, index_id, video_id);
-- One GIN per partition (it replaces the per-modality partial indexes of 0003).
CREATE INDEX segments_doc ON segments USING gin (doc);
-- exact_match reads conversation only.
CREATE INDEX segments_conversation_words ON segments_conversation USING gin (words);

DO $$
BEGIN
  IF to_regclass('segment_vectors') IS NOT NULL THEN
    ALTER TABLE segment_vectors ADD CONSTRAINT segment_vectors_segment_fkey
      FOREIGN KEY (segment_id, modality) REFERENCES segments (id, modality) ON DELETE CASCADE;
  END IF;
END
$$;
ANALYZE segments;

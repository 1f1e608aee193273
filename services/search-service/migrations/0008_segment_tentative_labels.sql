-- Up Migration
-- Issue 23. The labels a segment's detector only guessed at (under its clear score), listed with
-- the segment. Their words sit at weights C and D of doc (store.ts), so search weighs a match on
-- them below a clear sighting. Segments stored before have none: every label counted as clear.
ALTER TABLE segments ADD COLUMN tentative_labels text[] NOT NULL DEFAULT '{}';

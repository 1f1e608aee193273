-- Up Migration
-- The language of a video's recognised speech (ISO 639-1, e.g. en), as its speech recogniser
-- reported it; null when the words came from subtitles or a transcription file, or there were none.
ALTER TABLE videos ADD COLUMN speech_language text;

-- Down Migration
ALTER TABLE videos DROP COLUMN speech_language;

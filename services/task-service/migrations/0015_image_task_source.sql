-- Up Migration
-- An image item's task (issue 33) starts from the image: its worker makes the still video the
-- pipeline indexes (libs/media stillVideo) before validating it, so the request that creates the
-- item runs no ffmpeg. image_blob_key is the image (the asset's file, never the task's to delete);
-- media_blob_key is the still once made (the task's own media, removed with it or its video).
ALTER TABLE tasks DROP CONSTRAINT tasks_source_kind_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_source_kind_check CHECK (source_kind IN ('upload', 'url', 'image'));
ALTER TABLE tasks ADD COLUMN image_blob_key text;

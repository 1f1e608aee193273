-- Up Migration
-- The HLS rendition the worker made for a task that asked for a video stream:
-- {status, video_key, thumbnail_keys, updated_at}; blob keys, which the gateway turns into signed URLs.
ALTER TABLE tasks ADD COLUMN hls jsonb;
-- Set under the lease before the media minutes are reserved with the Meter, so a worker taking the
-- task over knows a dead worker may have debited the usage counters already (src/worker/pipeline.ts).
ALTER TABLE tasks ADD COLUMN media_reserve_started boolean NOT NULL DEFAULT false;

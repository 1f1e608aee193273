-- Up Migration
-- Videos of an index. System metadata comes from the worker's media probe; user metadata is
-- what the user sets (values: string, number or boolean).
CREATE TABLE videos (
  id             text PRIMARY KEY,
  org_id         text NOT NULL,
  -- Deleting an index deletes its videos; the index store writes their events first.
  index_id       text NOT NULL REFERENCES indexes (id) ON DELETE CASCADE,
  filename       text NOT NULL,
  duration       double precision NOT NULL,
  fps            double precision NOT NULL,
  width          integer NOT NULL,
  height         integer NOT NULL,
  size           bigint NOT NULL,
  title          text,
  user_metadata  jsonb NOT NULL DEFAULT '{}',
  -- { video_url, thumbnail_urls, status, updated_at } or null when there is no stream.
  hls            jsonb,
  extractors_run text[] NOT NULL DEFAULT '{}',
  -- The stored media file; never shown, removed by the consumer of video.deleted.
  media_blob_key text,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  indexed_at     timestamptz NOT NULL
);
CREATE INDEX videos_index_created ON videos (index_id, created_at DESC, id);
CREATE INDEX videos_index_updated ON videos (index_id, updated_at DESC, id);
CREATE INDEX videos_user_metadata ON videos USING gin (user_metadata jsonb_path_ops);

-- Transcription lines, on-screen text and logos: one row per timed value.
CREATE TABLE video_timed_values (
  video_id   text NOT NULL REFERENCES videos (id) ON DELETE CASCADE,
  kind       text NOT NULL CHECK (kind IN ('transcription', 'text_in_video', 'logo')),
  position   integer NOT NULL,
  start_s    double precision NOT NULL,
  end_s      double precision NOT NULL,
  value      text NOT NULL,
  confidence double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (video_id, kind, position)
);

-- Thumbnails are blobs written by the worker; the rows say where and at which time.
CREATE TABLE video_thumbnails (
  video_id     text NOT NULL REFERENCES videos (id) ON DELETE CASCADE,
  time_s       double precision NOT NULL,
  blob_key     text NOT NULL,
  content_type text NOT NULL DEFAULT 'image/jpeg',
  PRIMARY KEY (video_id, time_s)
);

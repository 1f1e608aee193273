-- Up Migration
-- Face tracks (issue 32, entity search): one row per person on screen in a video, with the 128
-- numbers of its clearest face (face-api's recogniser, libs/models). Plain real[]: an entity search
-- compares an entity's few reference faces with an index's tracks (a few per video) in the service,
-- so it needs no pgvector and works on every PostgreSQL.
CREATE TABLE face_tracks (
  id         bigserial PRIMARY KEY,
  org_id     text NOT NULL,
  index_id   text NOT NULL,
  video_id   text NOT NULL,
  start_sec  double precision NOT NULL,
  end_sec    double precision NOT NULL,
  embedding  real[] NOT NULL
);
CREATE INDEX face_tracks_video ON face_tracks (org_id, index_id, video_id);

-- The videos whose faces were tracked (possibly none on screen): an entity search tells them from
-- videos indexed before face tracks existed, and names the latter instead of silently missing them.
CREATE TABLE face_tracked_videos (
  org_id    text NOT NULL,
  index_id  text NOT NULL,
  video_id  text NOT NULL,
  PRIMARY KEY (org_id, index_id, video_id)
);

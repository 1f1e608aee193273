-- Up Migration
-- Reference faces for entity search (issue 32 §1): the face of each image asset an entity shows,
-- embedded by face-api's recogniser (libs/models face-recognition.ts) the first time an entity
-- needs it (created, assets added, or searched) and kept: one row per asset, since an asset's face
-- is the same whichever entity references it. A row with no embedding is an image in which no face
-- was found (it cannot find the entity: matching is by face); deleting the asset deletes its row.
CREATE TABLE asset_reference_faces (
  asset_id    text PRIMARY KEY REFERENCES assets (id) ON DELETE CASCADE,
  org_id      text NOT NULL,
  -- 128 numbers of the image's reference face; NULL when none was found.
  embedding   real[],
  -- Faces the model found in the image (the reference one is the largest).
  faces       integer NOT NULL,
  -- The face model that made it: a row of another model is embedded again.
  model       text NOT NULL,
  created_at  timestamptz NOT NULL
);

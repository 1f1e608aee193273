-- Up Migration
-- Asset user metadata (issue 32 §3, PUT/PATCH/DELETE /assets/{id}/user-metadata): null while none
-- is set, so the API can leave the field out as the reference documents ("absent when no metadata").
ALTER TABLE assets ADD COLUMN user_metadata jsonb;

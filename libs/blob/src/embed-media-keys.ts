import { isValidBlobKey } from './keys';

/**
 * Where the gateway puts the media of an embedding request (an uploaded `video_file`, a base64
 * `media_source`) for embed-service to read: one blob per request, under its organization. The
 * media is the request's only: it is removed once the embedding is answered or the task is done,
 * unlike an asset's file, which an embedding may also name by its own key and must never remove.
 */
export const EMBED_MEDIA_FOLDER = 'embed-tasks/';

export function embedMediaKey(orgId: string, id: string): string {
  return `${EMBED_MEDIA_FOLDER}${orgId}/${id}`;
}

/** True for a key embedMediaKey made: media that the embedding which names it owns. */
export function isEmbedMediaKey(key: string): boolean {
  return key.startsWith(EMBED_MEDIA_FOLDER) && isValidBlobKey(key);
}

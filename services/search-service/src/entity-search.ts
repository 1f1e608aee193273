import { normalise, type Moment } from '@vus/domain';
import { closestFace, FACE_MATCH_THRESHOLD } from '@vus/models';

/**
 * Entity search (issue 32): `query_text` naming an entity as `<@entity_id>` (e.g. `<@…> is walking`)
 * finds the moments where that entity appears, joined with the rest of the query. People are found
 * by face: each video's face tracks (one embedding per person on screen, made at indexing) against
 * the entity's reference faces (its images embedded the same way). Pure functions; the store query
 * reads an index's face tracks, and which videos have none computed.
 */

/** `<@id>` in query text: the id is anything up to `>` without spaces. */
const MENTION = /<@([^<>\s]+)>/g;

/** The entity ids a query names (first-seen order, once each) and its text without them. Pure. */
export function entityMentions(queryText: string): { entityIds: string[]; text: string } {
  const entityIds = [...new Set([...queryText.matchAll(MENTION)].map((m) => m[1]!))];
  const text = queryText.replace(MENTION, ' ').replace(/\s+/g, ' ').trim();
  return { entityIds, text };
}

/** One face track of an indexed video (task-service's face-tracks.ts). */
export interface IndexedFaceTrack {
  videoId: string;
  startSec: number;
  endSec: number;
  embedding: ArrayLike<number>;
}

/**
 * A face match's score (the calibrated 0..1 scale of scoring.ts): a face matched by the threshold is
 * a match whatever its distance, so it starts at FACE_MATCH_SCORE_FLOOR (between the low and medium
 * cuts) just under the threshold and rises to 1 for identical faces; at or past the threshold 0. Pure.
 */
export function faceMatchScore(distance: number, threshold: number = FACE_MATCH_THRESHOLD): number {
  if (!(distance < threshold)) return 0;
  return FACE_MATCH_SCORE_FLOOR + (1 - FACE_MATCH_SCORE_FLOOR) * Math.max(0, 1 - distance / threshold);
}

/** The score of a face just under the threshold: above the low cut (0.3), so every match is shown at the default threshold. */
export const FACE_MATCH_SCORE_FLOOR = 0.5;

/**
 * Where the entity appears, by video: the tracks whose face matches any of its reference faces,
 * each scored by its closest reference, as normalised moments (the best score where tracks overlap)
 * ready for the interval algebra that joins them with the rest of the query. Pure.
 */
export function entityMoments(
  references: readonly ArrayLike<number>[],
  tracks: readonly IndexedFaceTrack[],
  threshold: number = FACE_MATCH_THRESHOLD,
): Map<string, Moment[]> {
  const byVideo = new Map<string, Moment[]>();
  for (const track of tracks) {
    const closest = closestFace(references, track.embedding, threshold);
    if (!closest?.match) continue;
    const moments = byVideo.get(track.videoId) ?? [];
    moments.push({ start: track.startSec, end: track.endSec, score: faceMatchScore(closest.distance, threshold) });
    byVideo.set(track.videoId, moments);
  }
  return new Map([...byVideo].map(([videoId, moments]) => [videoId, normalise(moments)]));
}

/**
 * The videos an entity search cannot see faces in: indexed before face tracks were made (a
 * re-index gives them tracks). The answer names them rather than silently missing them. Pure.
 */
export function videosWithoutFaceTracks(videoIds: readonly string[], withFaceTracks: ReadonlySet<string>): string[] {
  return videoIds.filter((id) => !withFaceTracks.has(id));
}

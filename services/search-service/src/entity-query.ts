/**
 * Entity search wired into a search (issue 32 §1): the entities a query names are resolved to their
 * reference faces (task-service, org-scoped), the index's face tracks matched against them
 * (entity-search.ts), and the moments joined with the rest of the query. The API's answer to a
 * video indexed before face tracks existed is a 400 naming it (videosWithoutFaceTracks), so a
 * search never silently misses the entity there: re-index it, or leave it out with a filter.
 */
import { errors, isApiError, type ApiError } from '@vus/core';
import { composedMatches, type SegmentMatch } from './clips';
import { entitySearchUnavailable, unknownEntity, type EntityReferenceSet, type EntitySearchDeps } from './entity-parts';
import { entityMoments, videosWithoutFaceTracks, type IndexedFaceTrack } from './entity-search';
import type { Scope } from './search-types';

/** Entities one query may name: each costs a lookup in task-service. */
export const MAX_ENTITY_MENTIONS = 5;
/** Videos named in the error about missing face tracks; the rest are counted. */
const MAX_NAMED_VIDEOS = 10;
/** Entity ids are task-service's ids: a mention that cannot be one is an unknown entity, not a lookup. */
const ENTITY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The mentions checked before any lookup: how many, and ids that could exist. Pure. */
export function checkMentions(entityIds: readonly string[]): ApiError | undefined {
  if (entityIds.length > MAX_ENTITY_MENTIONS) {
    return errors.invalid(
      'query_text',
      `A query names at most ${MAX_ENTITY_MENTIONS} entities (<@entity_id>); it names ${entityIds.length}.`,
    );
  }
  const bad = entityIds.find((id) => !ENTITY_ID.test(id));
  return bad === undefined ? undefined : unknownEntity(bad);
}

/** An entity none of whose reference images shows a face cannot be found (matching is by face). Pure. */
export function facelessEntity(reference: EntityReferenceSet): ApiError | undefined {
  if (reference.faces.length > 0 || reference.images.length > 0) return undefined;
  if (reference.assetsNotReady.length > 0) {
    return errors.invalid(
      'query_text',
      `The entity ${reference.entityId} cannot be searched yet: its reference images are still being processed ` +
        `(${reference.assetsNotReady.join(', ')}). Search again when they are ready.`,
    );
  }
  return errors.invalid(
    'query_text',
    `The entity ${reference.entityId} cannot be searched: none of its reference images shows a face that could be recognised ` +
      `(${reference.assetsWithoutFace.join(', ') || 'no image'}). Entity search finds people by their face; add an image in which the face is clear.`,
  );
}

/** The error naming the videos an entity search cannot see faces in, or undefined when there are none. Pure. */
export function missingFaceTracks(missing: readonly string[]): ApiError | undefined {
  if (missing.length === 0) return undefined;
  const named = missing.slice(0, MAX_NAMED_VIDEOS).join(', ');
  const more = missing.length > MAX_NAMED_VIDEOS ? ` and ${missing.length - MAX_NAMED_VIDEOS} more` : '';
  return errors.invalid(
    'query_text',
    `Entity search finds people by the face tracks made at indexing, and ${missing.length} video(s) of the index have none ` +
      `(indexed before face tracks existed, or without the face model): ${named}${more}. ` +
      'Re-index them, or leave them out of the search with a filter on id.',
  );
}

/** One entity's moments as matches of the visual option (a face is seen). Pure. */
export function entityMatches(reference: EntityReferenceSet, tracks: readonly IndexedFaceTrack[]): SegmentMatch[] {
  const matches: SegmentMatch[] = [];
  for (const [videoId, moments] of entityMoments(reference.faces, tracks)) {
    for (const m of moments)
      matches.push({ videoId, start: m.start, end: m.end, option: 'visual', score: m.score, text: '', thumbnailKey: '' });
  }
  return matches;
}

/**
 * Joins the moments of every named entity and, when the query has more (text or an image), its
 * matches: a moment is kept where all of them hold at once (composedMatches). Pure.
 */
export function joinEntityMatches(perEntity: readonly SegmentMatch[][], rest: readonly SegmentMatch[] | undefined): SegmentMatch[] {
  const sides = rest === undefined ? [...perEntity] : [[...rest], ...perEntity];
  if (sides.length === 0) return [];
  return sides.slice(1).reduce((joined, side) => composedMatches(joined, side), sides[0]!);
}

/** Reference faces of the named entities (errors: 501 without task-service, 404 unknown, 400 faceless). */
export async function resolveEntities(deps: EntitySearchDeps, orgId: string, entityIds: readonly string[]): Promise<EntityReferenceSet[]> {
  const checked = checkMentions(entityIds);
  if (checked) throw checked;
  if (!deps.references) throw entitySearchUnavailable();
  const references = await Promise.all(entityIds.map((id) => deps.references!.referenceFaces(orgId, id)));
  for (const reference of references) {
    const faceless = facelessEntity(reference);
    if (faceless) throw faceless;
  }
  return references;
}

/** Each entity's matches in the scope's videos; a video of the scope without face tracks is an error naming it. */
export async function entityMatchesIn(
  deps: EntitySearchDeps,
  scope: Scope,
  references: readonly EntityReferenceSet[],
  imageMatches: (images: readonly Buffer[]) => Promise<SegmentMatch[]>,
): Promise<SegmentMatch[][]> {
  const byFace = references.some((r) => r.faces.length > 0);
  if (byFace) {
    const videos = await deps.faceTracks.indexedVideos(scope.orgId, scope.indexId, scope.videoIds);
    const tracked = await deps.faceTracks.trackedVideos(scope.orgId, scope.indexId, videos);
    const missing = missingFaceTracks(videosWithoutFaceTracks(videos, tracked));
    if (missing) throw missing;
  }
  const tracks = byFace ? await deps.faceTracks.tracks(scope.orgId, scope.indexId, scope.videoIds) : [];
  // One entity at a time: an image query is a model run per image.
  const perEntity: SegmentMatch[][] = [];
  for (const reference of references) {
    const byImage = reference.images.length > 0 ? await visualMatches(reference, imageMatches) : [];
    const byFace = entityMatches(reference, tracks);
    const thumbnails = await deps.faceTracks.thumbnailsAt(scope.orgId, scope.indexId, byFace);
    perEntity.push([...byFace.map((match, i) => ({ ...match, thumbnailKey: thumbnails[i] ?? '' })), ...byImage]);
  }
  return perEntity;
}

/**
 * An entity's images without a face, searched as one query of several images (the visual
 * embedding, and the objects the detector sees). An entity that has faces too is still found by
 * them when no image model is available here; one with only such images gets that error.
 */
async function visualMatches(
  reference: EntityReferenceSet,
  imageMatches: (images: readonly Buffer[]) => Promise<SegmentMatch[]>,
): Promise<SegmentMatch[]> {
  try {
    return await imageMatches(reference.images);
  } catch (error) {
    if (reference.faces.length > 0 && isApiError(error) && error.code === 'model_unavailable') return [];
    throw error;
  }
}

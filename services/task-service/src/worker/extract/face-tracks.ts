import { faceDistance, FACE_MATCH_THRESHOLD, iou, type Box, type DetectedFace, type EmbeddedFace } from '@vus/models';

/**
 * Face tracks (issue 32, entity search): the faces seen in sampled frames joined into one track per
 * person on screen, each kept with one embedding, so a search for an entity compares its reference
 * faces with a few tracks per video instead of every frame's faces. Kept apart from the frame loop
 * (frames.ts): the loop hands each analysed frame's embedded faces here and stores the tracks.
 */
export interface FrameFaces {
  /** The frame's position, seconds. */
  timeSec: number;
  faces: readonly EmbeddedFace[];
}

export interface FaceTrack {
  startSec: number;
  endSec: number;
  /** The embedding of the track's clearest face (highest detector score): the one that stands for it. */
  embedding: Float32Array;
  score: number;
  /** Where that face was, in its frame's pixels. */
  box: Box;
  /** Frames the face was seen in. */
  frames: number;
}

export interface FaceTrackOptions {
  /** Seconds of video a sampled frame stands for: a track ends `step` after its last frame. */
  step: number;
  /** Frames a face may go unseen (turned away, occluded, a detector miss) and still continue its track. */
  maxGapFrames?: number;
  /** Distance under which a face continues a track: the matcher's threshold (face-match.ts). */
  threshold?: number;
  /** The video's length: no track ends after it. */
  durationSec?: number;
}

interface OpenTrack extends FaceTrack {
  last: Float32Array;
  lastSec: number;
}

/**
 * Joins the faces of frames (in any order) into tracks: a face continues the open track whose last
 * face is nearest to it, if under the threshold and seen at most `maxGapFrames` frames before; each
 * track takes at most one face per frame (nearest pairs first); any other face opens a track. Pure.
 */
export function faceTracks(frames: readonly FrameFaces[], options: FaceTrackOptions): FaceTrack[] {
  const { step, maxGapFrames = 2, threshold = FACE_MATCH_THRESHOLD, durationSec = Infinity } = options;
  const open: OpenTrack[] = [];
  const closed: OpenTrack[] = [];
  for (const frame of [...frames].sort((a, b) => a.timeSec - b.timeSec)) {
    // Tracks unseen for too long end before this frame is matched.
    for (let i = open.length - 1; i >= 0; i--) {
      if (frame.timeSec - open[i]!.lastSec > step * (maxGapFrames + 1) + 1e-9) closed.push(...open.splice(i, 1));
    }
    const pairs = frame.faces.flatMap((face, f) =>
      open.map((track, t) => ({ f, t, d: faceDistance(track.last, face.embedding) })).filter((p) => p.d < threshold),
    );
    pairs.sort((a, b) => a.d - b.d);
    const usedFaces = new Set<number>();
    const usedTracks = new Set<number>();
    for (const { f, t } of pairs) {
      if (usedFaces.has(f) || usedTracks.has(t)) continue;
      usedFaces.add(f);
      usedTracks.add(t);
      const track = open[t]!;
      const face = frame.faces[f]!;
      track.last = face.embedding;
      track.lastSec = frame.timeSec;
      track.frames += 1;
      if (face.score > track.score) Object.assign(track, { embedding: face.embedding, score: face.score, box: face.box });
    }
    frame.faces.forEach((face, f) => {
      if (usedFaces.has(f)) return;
      open.push({
        startSec: frame.timeSec,
        endSec: frame.timeSec,
        embedding: face.embedding,
        score: face.score,
        box: face.box,
        frames: 1,
        last: face.embedding,
        lastSec: frame.timeSec,
      });
    });
  }
  return [...closed, ...open]
    .map(({ last: _last, lastSec, ...track }) => ({ ...track, endSec: Math.min(durationSec, lastSec + step) }))
    .sort((a, b) => a.startSec - b.startSec || b.score - a.score);
}

/**
 * A face's embedding is carried to the next analysed frame when its box barely moved: within one
 * picture (no cut: frame-gates.ts's PICTURE_CHANGE) a face overlapping one embedded less than
 * FACES_REFRESH_SEC ago by SAME_FACE_IOU is taken for it, each embedded face for one face at most
 * (best overlaps first). Measured by scripts/bench/face-reuse.js on the SDK's example (see README's
 * Indexing speed): a carried embedding lies within a small distance of the one the face would have
 * had, far under the matcher's threshold.
 */
export const FACES_REFRESH_SEC = 3;
export const SAME_FACE_IOU = 0.5;

/** An embedded face of an analysed frame, and when its embedding was made (it may be carried). */
export interface CarriedFace extends EmbeddedFace {
  embeddedSec: number;
}

/**
 * For each detected face, the index of the `carried` face whose embedding it takes over, or
 * undefined when it is to be embedded (see SAME_FACE_IOU). Pure.
 */
export function reusedEmbeddings(
  detected: readonly DetectedFace[],
  carried: readonly CarriedFace[],
  pictureChanged: boolean,
  nowSec: number,
  step: number,
  options: { minIou?: number; refreshSec?: number } = {},
): (number | undefined)[] {
  const { minIou = SAME_FACE_IOU, refreshSec = FACES_REFRESH_SEC } = options;
  const reused: (number | undefined)[] = detected.map(() => undefined);
  if (pictureChanged) return reused;
  const pairs = detected.flatMap((face, d) =>
    carried.flatMap((previous, c) => {
      const overlap = iou(face.box, previous.box);
      return overlap >= minIou && nowSec - previous.embeddedSec < refreshSec - step / 2 ? [{ d, c, overlap }] : [];
    }),
  );
  pairs.sort((a, b) => b.overlap - a.overlap);
  const taken = new Set<number>();
  for (const { d, c } of pairs) {
    if (reused[d] !== undefined || taken.has(c)) continue;
    reused[d] = c;
    taken.add(c);
  }
  return reused;
}

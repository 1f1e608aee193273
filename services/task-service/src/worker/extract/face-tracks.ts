import { faceDistance, FACE_MATCH_THRESHOLD, type Box, type DetectedFace, type EmbeddedFace } from '@vus/models';

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
 * Embedding faces costs far more than finding them: face-api's detector, landmarks and recogniser
 * took 1.85 s per 960×540 frame of three faces on this 2-core machine under load (load average 11;
 * BlazeFace is a fraction of it). Within a shot the same people stay in place, so an analysed frame
 * reuses the last embedded faces unless the picture changed (a cut or fast motion: frames.ts's
 * OBJECTS_CHANGE), the detector's faces no longer sit where the embedded ones were (count or
 * place), or FACES_REFRESH_SEC passed: a talking head is embedded every 3 s instead of every second.
 */
export const FACES_REFRESH_SEC = 3;
/** A detected face overlapping an embedded one by this much (intersection over union) is taken for it. */
const SAME_PLACE_IOU = 0.3;

function overlap(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/** Whether an analysed frame's faces are to be embedded again (see FACES_REFRESH_SEC). Pure. */
export function facesDue(
  detected: readonly DetectedFace[],
  embedded: readonly DetectedFace[],
  pictureChanged: boolean,
  nowSec: number,
  lastEmbeddedSec: number,
  step: number,
): boolean {
  if (pictureChanged || nowSec - lastEmbeddedSec >= FACES_REFRESH_SEC - step / 2) return true;
  if (detected.length !== embedded.length) return true;
  return !detected.every((d) => embedded.some((e) => overlap(d.box, e.box) >= SAME_PLACE_IOU));
}

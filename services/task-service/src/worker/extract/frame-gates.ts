/**
 * Which models run on an analysed frame (issue 30). Real footage changes a little every second, so
 * every sampled frame passes the any-change test (FrameChangeDetector's defaults) and is analysed;
 * a model whose findings stay put within one picture runs only when the picture changes
 * (PICTURE_CHANGE) or its last run is old enough. scripts/bench/frame-change.js --models measures
 * what each gate skips and what it loses.
 */

/**
 * A different picture: consecutive frames whose 32×32 luma signatures differ by a mean of at least
 * 10 of 255. Measured on the SDK's example (160 s of news, 1 frame/s): frames of one shot differ by
 * 1.3–6.5, cuts by 17.5–77, fast motion by 8–25; 10 separates the first two.
 */
export const PICTURE_CHANGE = { minMeanDifference: 10 } as const;

/**
 * Whether a model gated on picture changes is due on an analysed frame: the picture changed, or its
 * last run is `refreshSec` old (what moves within one picture is found that late at most). Pure.
 */
export function pictureModelDue(pictureChanged: boolean, nowSec: number, lastRunSec: number, step: number, refreshSec: number): boolean {
  return pictureChanged || nowSec - lastRunSec >= refreshSec - step / 2;
}

/**
 * The object detector (about 0.2 CPU-s a frame at 512 × 512, ~0.12 since its input is shaped like
 * the frame; one of the costliest frame models): on the example it then runs on 67 of 161 frames
 * (the refresh adds 9 of them) instead of 161, and still on every picture of the generated objects
 * fixture (4 of 4 changes).
 */
export const OBJECTS_REFRESH_SEC = 5;

/** Whether the object detector is due on an analysed frame (see OBJECTS_REFRESH_SEC). Pure. */
export function objectsDue(pictureChanged: boolean, nowSec: number, lastRunSec: number, step: number): boolean {
  return pictureModelDue(pictureChanged, nowSec, lastRunSec, step, OBJECTS_REFRESH_SEC);
}

/**
 * Whether the text of a still stretch is due to be read again: 3 s after it began, then each time
 * it has lasted three times as long as at the last read (3, 9, 27, 81 … s in), so a title that
 * fades in or a line that appears late on a still shot is read, at a cost of a read or two per
 * still stretch (none on footage that changes every second). Pure.
 */
export function recheckDue(nowSec: number, lastReadSec: number, stillSinceSec: number, step: number): boolean {
  const due = Math.max(RECHECK_FIRST_SEC, RECHECK_GROWTH * (lastReadSec - stillSinceSec));
  return nowSec - stillSinceSec >= due - step / 2;
}

const RECHECK_FIRST_SEC = 3;
const RECHECK_GROWTH = 3;

/**
 * Text, faces and the frame's vector: measured on the example (161 analysed frames, 58 picture
 * changes) with scripts/bench/frame-change.js --models, each run on a picture change or 2 s after
 * its last run, on 99 frames instead of 161: the text reader never reads 2 of the 47 distinct lines
 * (each seen on one frame only: "8142", "bibk", misreadings of a logo) and reads 4.5 % of
 * line-frames a second late; BlazeFace misses 5 of 176 face-frames; the carried vector's cosine to
 * the frame's own is 0.997 on average, 0.966 at worst. On the generated text fixtures (a new card
 * on the same background is not a picture change) it runs on every card and loses nothing; a 3 s
 * refresh skips a card there (a line never read, vector cosine 0.886), 5 s misses 11.6 % of the
 * example's line-frames, 10 s three lines seen on several frames.
 */
export const WITHIN_PICTURE_REFRESH_SEC = 2;

/**
 * Whether the text reader (its detector above all), the face detector and the frame's vector are
 * due on an analysed frame (see WITHIN_PICTURE_REFRESH_SEC; one schedule, so they run on the same
 * frames). Pure.
 */
export function withinPictureDue(pictureChanged: boolean, nowSec: number, lastRunSec: number, step: number): boolean {
  return pictureModelDue(pictureChanged, nowSec, lastRunSec, step, WITHIN_PICTURE_REFRESH_SEC);
}

/** The frame models a pass has; an absent one is never planned. */
export interface ModelsPresent {
  text: boolean;
  objects: boolean;
  faces: boolean;
  faceEmbedder: boolean;
  vector: boolean;
}

/** What the frame pass does with one sampled frame: which models look at it (the others carry their last results). */
export interface FramePlan {
  /** The picture changed at all (FrameChangeDetector's defaults): the frame is analysed. */
  analysed: boolean;
  /** A different picture (PICTURE_CHANGE); only asked of analysed frames, false on the others. */
  pictureChanged: boolean;
  /** Text, faces and the vector are looked for on this analysed frame (withinPictureDue), whether or not their models are present. */
  withinPicture: boolean;
  /** An unchanged frame of a still stretch whose text is read again (recheckDue). */
  recheck: boolean;
  /** The text reader reads it: an analysed frame within its schedule, or a recheck. */
  text: boolean;
  objects: boolean;
  faces: boolean;
  /**
   * Faces are embedded: those the face detector found on this frame (so only where it runs), or,
   * without a face detector, the embedder's own on every analysed frame.
   */
  faceEmbedding: boolean;
  vector: boolean;
}

/** What the gates remember between frames: when the picture last changed and when each schedule last ran. */
export interface FrameGateState {
  /** When the picture last changed (the change detector's last frame let through). */
  stillSinceSec: number;
  /** The last frame analysed or read again: a still stretch's next recheck counts from it. */
  lastObservedSec: number;
  objectsRunSec: number;
  withinPictureRunSec: number;
}

export const FIRST_FRAME_GATES: FrameGateState = {
  stillSinceSec: 0,
  lastObservedSec: 0,
  objectsRunSec: -Infinity,
  withinPictureRunSec: -Infinity,
};

/**
 * The plan of the next sampled frame from its change tests and time alone (no model result), so a
 * whole stretch of frames is planned as fast as it is decoded and each model can work through its
 * own frames without waiting for the others (frames.ts). Pure.
 */
export function planFrame(
  state: FrameGateState,
  frame: { timeSec: number; changed: boolean; pictureChanged: boolean },
  present: ModelsPresent,
  step: number,
): { plan: FramePlan; state: FrameGateState } {
  const { timeSec } = frame;
  if (!frame.changed) {
    const recheck = present.text && recheckDue(timeSec, state.lastObservedSec, state.stillSinceSec, step);
    return {
      plan: { ...NOTHING, recheck, text: recheck },
      state: recheck ? { ...state, lastObservedSec: timeSec } : state,
    };
  }
  const objects = present.objects && objectsDue(frame.pictureChanged, timeSec, state.objectsRunSec, step);
  const withinPicture = withinPictureDue(frame.pictureChanged, timeSec, state.withinPictureRunSec, step);
  return {
    plan: {
      analysed: true,
      pictureChanged: frame.pictureChanged,
      withinPicture,
      recheck: false,
      text: present.text && withinPicture,
      objects,
      faces: present.faces && withinPicture,
      faceEmbedding: present.faceEmbedder && (present.faces ? withinPicture : true),
      vector: present.vector && withinPicture,
    },
    state: {
      stillSinceSec: timeSec,
      lastObservedSec: timeSec,
      objectsRunSec: objects ? timeSec : state.objectsRunSec,
      withinPictureRunSec: withinPicture ? timeSec : state.withinPictureRunSec,
    },
  };
}

const NOTHING: FramePlan = {
  analysed: false,
  pictureChanged: false,
  withinPicture: false,
  recheck: false,
  text: false,
  objects: false,
  faces: false,
  faceEmbedding: false,
  vector: false,
};

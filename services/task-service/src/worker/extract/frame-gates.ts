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
 * The object detector (about 0.2 CPU-s a frame, the costliest frame model): on the example it then
 * runs on 67 of 161 frames (the refresh adds 9 of them) instead of 161, and still on every picture
 * of the generated objects fixture (4 of 4 changes).
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

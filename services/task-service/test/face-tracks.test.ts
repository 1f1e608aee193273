import type { EmbeddedFace } from '@vus/models';
import { faceTracks, FACES_REFRESH_SEC, reusedEmbeddings, type FrameFaces } from '../src/worker/extract/face-tracks';

/** A face whose embedding is the point (x, 0) of a 2-d space: distance is the difference of x. */
const face = (x: number, score = 0.9): EmbeddedFace => ({
  score,
  box: { x: Math.round(x * 100), y: 0, width: 10, height: 10 },
  embedding: Float32Array.of(x, 0),
});
const frame = (timeSec: number, ...faces: EmbeddedFace[]): FrameFaces => ({ timeSec, faces });
const spans = (frames: FrameFaces[], options = {}) =>
  faceTracks(frames, { step: 1, threshold: 0.4, ...options }).map((t) => [t.startSec, t.endSec, t.frames]);

describe('faceTracks', () => {
  it.each<[string, FrameFaces[], object, number[][]]>([
    ['no frames', [], {}, []],
    ['one face over three frames', [frame(0, face(0)), frame(1, face(0.1)), frame(2, face(0.05))], {}, [[0, 3, 3]]],
    [
      'two people side by side',
      [frame(0, face(0), face(1)), frame(1, face(1.05), face(0.02))],
      {},
      [
        [0, 2, 2],
        [0, 2, 2],
      ],
    ],
    [
      'a different person after a cut',
      [frame(0, face(0)), frame(1, face(1))],
      {},
      [
        [0, 1, 1],
        [1, 2, 1],
      ],
    ],
    ['a gap of two frames continues', [frame(0, face(0)), frame(3, face(0.1))], {}, [[0, 4, 2]]],
    [
      'a gap of three frames starts again',
      [frame(0, face(0)), frame(4, face(0.1))],
      {},
      [
        [0, 1, 1],
        [4, 5, 1],
      ],
    ],
    ['the gap allowed is an option', [frame(0, face(0)), frame(4, face(0.1))], { maxGapFrames: 3 }, [[0, 5, 2]]],
    ['frames in any order', [frame(2, face(0)), frame(0, face(0)), frame(1, face(0))], {}, [[0, 3, 3]]],
    ['no track ends after the video', [frame(0, face(0)), frame(1, face(0))], { durationSec: 1.5 }, [[0, 1.5, 2]]],
  ])('%s', (_case, frames, options, expected) => {
    expect(spans(frames, options)).toEqual(expected);
  });

  it('takes one face per track per frame, nearest first', () => {
    // Two faces near the one track: the nearer continues it, the other opens a track.
    const tracks = faceTracks([frame(0, face(0)), frame(1, face(0.3), face(0.1))], { step: 1, threshold: 0.4 });
    expect(tracks.map((t) => [t.startSec, t.frames])).toEqual([
      [0, 2],
      [1, 1],
    ]);
  });

  it("keeps the clearest face's embedding and box for the track", () => {
    const [track] = faceTracks([frame(0, face(0, 0.6)), frame(1, face(0.1, 0.95)), frame(2, face(0.2, 0.7))], { step: 1, threshold: 0.4 });
    expect(track?.score).toBe(0.95);
    expect(Array.from(track!.embedding)).toEqual([Math.fround(0.1), 0]);
    expect(track?.box.x).toBe(10);
  });

  it('follows a face that drifts step by step further than the threshold from where it began', () => {
    const drift = [0, 0.3, 0.6, 0.9].map((x, i) => frame(i, face(x)));
    expect(spans(drift)).toEqual([[0, 4, 4]]);
  });
});

describe('reusedEmbeddings: which faces of an analysed frame keep an embedding made before', () => {
  const at = (x: number, y = 0, side = 100) => ({ score: 0.9, box: { x, y, width: side, height: side } });
  const made = (x: number, embeddedSec = 10) => ({ ...at(x), embedding: Float32Array.of(x), embeddedSec });
  it.each<[string, ReturnType<typeof at>[], ReturnType<typeof made>[], boolean, number, (number | undefined)[]]>([
    ['the same face in place, 1 s later', [at(10)], [made(0)], false, 11, [0]],
    ['two faces in place, in another order', [at(500), at(0)], [made(0), made(505)], false, 11, [1, 0]],
    ['the picture changed (a cut)', [at(0)], [made(0)], true, 11, [undefined]],
    ['made FACES_REFRESH_SEC ago', [at(0)], [made(0)], false, 10 + FACES_REFRESH_SEC, [undefined]],
    ['made just under FACES_REFRESH_SEC ago', [at(0)], [made(0)], false, 10 + FACES_REFRESH_SEC - 1, [0]],
    ['a new face beside one in place', [at(0), at(500)], [made(0)], false, 11, [0, undefined]],
    ['a face gone', [at(0)], [made(0), made(500)], false, 11, [0]],
    ['the face moved by half its width (IoU 0.33)', [at(50)], [made(0)], false, 11, [undefined]],
    ['the face moved by a fifth of its width (IoU 0.67)', [at(20)], [made(0)], false, 11, [0]],
    ['two faces over one made before: the closer keeps it', [at(30), at(5)], [made(0)], false, 11, [undefined, 0]],
    ['nothing made yet (first frame)', [at(0)], [], false, 11, [undefined]],
    ['no faces', [], [made(0)], false, 11, []],
  ])('%s', (_name, detected, carried, pictureChanged, nowSec, reused) => {
    expect(reusedEmbeddings(detected, carried, pictureChanged, nowSec, 1)).toEqual(reused);
  });

  it('takes the overlap and the refresh period it is given', () => {
    expect(reusedEmbeddings([at(50)], [made(0)], false, 11, 1, { minIou: 0.3 })).toEqual([0]);
    expect(reusedEmbeddings([at(0)], [made(0)], false, 20, 1, { refreshSec: 20 })).toEqual([0]);
  });
});

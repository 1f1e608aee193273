import { clipsWithSegments, type IndexedSegment } from '../src/indexed-video';
import { embeddingModelOfIndex } from '../src/model-names';

const seg = (start: number, end: number, modality = 'visual'): IndexedSegment => ({ start, end, modality, text: '', labels: [] });
const spans = (windows: ReturnType<typeof clipsWithSegments>) =>
  windows.map((w) => [w.start, w.end, w.segments.map((s) => [s.start, s.end])]);

describe('clipsWithSegments', () => {
  it.each([
    ['no video', 0, 6, [], []],
    ['one short clip', 4, 6, [seg(0, 1)], [[0, 4, [[0, 1]]]]],
    [
      'a segment spanning a boundary belongs to both clips',
      12,
      6,
      [seg(5, 7)],
      [
        [0, 6, [[5, 7]]],
        [6, 12, [[5, 7]]],
      ],
    ],
    [
      'a segment ending on a boundary belongs to the first only',
      12,
      6,
      [seg(3, 6)],
      [
        [0, 6, [[3, 6]]],
        [6, 12, []],
      ],
    ],
    [
      'a segment of no length belongs to the clip it starts in',
      12,
      6,
      [seg(6, 6)],
      [
        [0, 6, []],
        [6, 12, [[6, 6]]],
      ],
    ],
    [
      'the last clip is cut at the duration',
      13,
      6,
      [seg(12, 13)],
      [
        [0, 6, []],
        [6, 12, []],
        [12, 13, [[12, 13]]],
      ],
    ],
    ['segments past the end are left out', 6, 6, [seg(7, 8)], [[0, 6, []]]],
  ] as const)('%s', (_name, duration, clip, segments, expected) => {
    expect(spans(clipsWithSegments(duration, clip, segments as unknown as IndexedSegment[]))).toEqual(expected);
  });
});

describe('embeddingModelOfIndex', () => {
  it.each([
    ['marengo2.7', 'Marengo-retrieval-2.7'],
    ['marengo2.6', 'Marengo-retrieval-2.6'],
    ['marengo3.0', 'marengo3.0'],
    ['Marengo-retrieval-2.7', 'Marengo-retrieval-2.7'],
    ['marengo2.5', 'Marengo-retrieval-2.7'],
  ])('%s → %s', (indexModel, embeddingModel) => {
    expect(embeddingModelOfIndex(indexModel).name).toBe(embeddingModel);
  });
});

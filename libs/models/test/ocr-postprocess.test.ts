import { ctcGreedyDecode, findTextBoxes, mergeLineBoxes, sortReadingOrder, splitWords, type DecodedChar } from '../src/ocr/postprocess';
import { regionDifference, sameBox } from '../src/ocr/paddle-ocr';

/** A probability map with the given rectangles filled with `p`. */
function map(width: number, height: number, rects: Array<[x: number, y: number, w: number, h: number, p: number]>): Float32Array {
  const out = new Float32Array(width * height);
  for (const [x, y, w, h, p] of rects) {
    for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) out[j * width + i] = p;
  }
  return out;
}

describe('findTextBoxes', () => {
  it.each<[string, Array<[number, number, number, number, number]>, Array<{ x: number; y: number; width: number; height: number }>]>([
    ['nothing above the threshold', [[2, 2, 10, 4, 0.2]], []],
    ['one region, grown by area × 1.5 / perimeter', [[20, 20, 20, 10, 0.9]], [{ x: 15, y: 15, width: 30, height: 20 }]],
    ['a region too faint on average', [[20, 20, 20, 10, 0.5]], []],
    ['a region thinner than 3 pixels', [[20, 20, 20, 2, 0.9]], []],
    ['growth clamped at the edges', [[0, 0, 10, 10, 0.9]], [{ x: 0, y: 0, width: 14, height: 14 }]],
    [
      'two rows in reading order',
      [
        [50, 40, 20, 10, 0.9],
        [10, 10, 20, 10, 0.9],
      ],
      [
        { x: 5, y: 5, width: 30, height: 20 },
        { x: 45, y: 35, width: 30, height: 20 },
      ],
    ],
  ])('%s', (_name, rects, expected) => {
    const boxes = findTextBoxes(map(80, 60, rects), 80, 60);
    expect(boxes.map(({ x, y, width, height }) => ({ x, y, width, height }))).toEqual(expected);
  });
});

describe('sortReadingOrder', () => {
  it('orders rows top to bottom and boxes in a row left to right, tolerating small vertical offsets', () => {
    const boxes = [
      { x: 300, y: 12, width: 50, height: 20, id: 'row1-right' },
      { x: 10, y: 100, width: 50, height: 20, id: 'row2' },
      { x: 10, y: 10, width: 50, height: 20, id: 'row1-left' },
    ];
    expect(sortReadingOrder(boxes).map((b) => b.id)).toEqual(['row1-left', 'row1-right', 'row2']);
  });
});

describe('ctcGreedyDecode', () => {
  const dictionary = ['a', 'b', ' '];
  /** One row per step: the probability of each class (0 = blank). */
  const steps = (...best: number[]): Float32Array =>
    Float32Array.from(best.flatMap((k) => [0, 1, 2, 3].map((c) => (c === k ? 0.9 : 0.01))));

  it.each<[string, number[], string]>([
    ['blanks only', [0, 0, 0], ''],
    ['repeats collapse', [1, 1, 1, 2], 'ab'],
    ['a blank separates a doubled letter', [1, 0, 1], 'aa'],
    ['the last class is the space', [1, 3, 2], 'a b'],
  ])('%s', (_name, best, text) => {
    const chars = ctcGreedyDecode(steps(...best), best.length, 4, dictionary);
    expect(chars.map((c) => c.char).join('')).toBe(text);
    for (const c of chars) expect(c.probability).toBeCloseTo(0.9);
  });

  it('records the step of each character', () => {
    expect(ctcGreedyDecode(steps(0, 1, 1, 0, 2), 5, 4, dictionary).map((c) => c.step)).toEqual([1, 4]);
  });
});

describe('splitWords', () => {
  const chars = (spec: string): DecodedChar[] =>
    spec.split(' ').map((token) => {
      const [char, step] = token.split('@');
      return { char: char === '_' ? ' ' : char!, probability: 0.9, step: Number(step) };
    });

  it.each<[string, string, string[]]>([
    ['at recognised spaces', 'a@1 b@3 _@5 c@7 d@9', ['ab', 'cd']],
    ['where the space was dropped but the gap is wide', 'H@2 E@5 L@7 L@10 O@12 W@19 O@21 R@24', ['HELLO', 'WOR']],
    ['not at an ordinary gap between wide letters', 'W@2 e@6 l@9 c@11 o@14 m@17 e@22', ['Welcome']],
  ])('splits %s', (_name, spec, words) => {
    expect(splitWords(chars(spec), 30).map((w) => w.text)).toEqual(words);
  });

  it('places each word along the line by its steps', () => {
    const [first, second] = splitWords(chars('a@1 b@3 _@5 c@7 d@9'), 10);
    expect(first).toMatchObject({ from: 0, to: 0.5 });
    expect(second).toMatchObject({ from: 0.6, to: 1 });
  });
});

describe('mergeLineBoxes', () => {
  const box = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
  it.each([
    [
      'the words of a title line become one line',
      [box(100, 50, 120, 40), box(235, 52, 140, 38), box(390, 50, 200, 40)],
      [box(100, 50, 490, 40)],
    ],
    ['overlapping pieces of one line join', [box(10, 10, 80, 20), box(85, 11, 120, 20)], [box(10, 10, 195, 21)]],
    ['words far apart on a row stay apart', [box(10, 10, 80, 20), box(300, 10, 80, 20)], [box(10, 10, 80, 20), box(300, 10, 80, 20)]],
    [
      'two lines one above the other stay apart',
      [box(10, 10, 200, 20), box(10, 35, 200, 20)],
      [box(10, 10, 200, 20), box(10, 35, 200, 20)],
    ],
    [
      'a small caption beside a large title stays apart',
      [box(10, 10, 200, 60), box(215, 30, 80, 20)],
      [box(10, 10, 200, 60), box(215, 30, 80, 20)],
    ],
    [
      'two rows of words, each joined',
      [box(150, 100, 50, 20), box(10, 10, 50, 20), box(65, 10, 50, 20), box(10, 100, 130, 20)],
      [box(10, 10, 105, 20), box(10, 100, 190, 20)],
    ],
  ])('%s', (_name, boxes, expected) => {
    expect(mergeLineBoxes(boxes)).toEqual(expected);
  });
});

describe('sameBox and regionDifference (reusing a still box’s reading)', () => {
  const box = { x: 10, y: 20, width: 100, height: 16 };
  it.each([
    ['the same box', box, true],
    ['each side within 2 px', { x: 12, y: 18, width: 98, height: 20 }, true],
    ['moved 3 px right', { ...box, x: 13 }, false],
    ['wider by 3 px', { ...box, width: 103 }, false],
  ])('%s → %s', (_name, other, same) => {
    expect(sameBox(box, other)).toBe(same);
  });

  const image = (fill: number, width = 40, height = 20) => ({ data: Buffer.alloc(width * height * 3, fill), width, height });
  it('is the mean difference inside the box only, and the maximum for frames of other sizes', () => {
    const a = image(100);
    const b = image(100);
    // Change the right half of b: a box over the left half sees nothing, one over the right half sees it all.
    for (let y = 0; y < 20; y++) b.data.fill(160, (y * 40 + 20) * 3, (y * 40 + 40) * 3);
    expect(regionDifference(a, b, { x: 0, y: 0, width: 20, height: 20 })).toBe(0);
    expect(regionDifference(a, b, { x: 20, y: 0, width: 20, height: 20 })).toBe(60);
    expect(regionDifference(a, image(100, 20, 20), { x: 0, y: 0, width: 10, height: 10 })).toBe(255);
    expect(regionDifference(a, b, { x: 50, y: 0, width: 10, height: 10 })).toBe(255);
  });
});

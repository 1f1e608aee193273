import fc from 'fast-check';
import {
  MIN_MOMENT_SECONDS,
  closeGaps,
  coalesce,
  followedBy,
  intersect,
  normalise,
  scoreOverTime,
  sequence,
  subtract,
  union,
  unionAll,
  widen,
  type Moment,
} from '@vus/domain';

const RUNS = { numRuns: 200 };

/** Whole-second boundaries and scores in hundredths keep the arithmetic exact. */
const moment = fc
  .record({ start: fc.integer({ min: 0, max: 60 }), length: fc.integer({ min: 1, max: 15 }), score: fc.integer({ min: 0, max: 100 }) })
  .map(({ start, length, score }): Moment => ({ start, end: start + length, score: score / 100 }));
const moments = fc.array(moment, { maxLength: 8 });
const proximity = fc.integer({ min: 1, max: 10 });

const m = (start: number, end: number, score = 1): Moment => ({ start, end, score });

/** The score at instant t: the best moment covering [start, end), or undefined. */
function scoreAt(ms: readonly Moment[], t: number): number | undefined {
  const covering = ms.filter((x) => x.start <= t && t < x.end).map((x) => x.score);
  return covering.length > 0 ? Math.max(...covering) : undefined;
}

/** Midpoints between all boundaries of the given lists: every piece is sampled at least once. */
function samples(...lists: (readonly Moment[])[]): number[] {
  const bounds = [...new Set(lists.flat().flatMap((x) => [x.start, x.end]))].sort((x, y) => x - y);
  return bounds.slice(1).map((b, i) => (bounds[i]! + b) / 2);
}

function isNormalised(ms: readonly Moment[]): boolean {
  return ms.every(
    (x, i) =>
      x.end > x.start &&
      x.score >= 0 &&
      x.score <= 1 &&
      (i === 0 || (ms[i - 1]!.end <= x.start && !(ms[i - 1]!.end === x.start && ms[i - 1]!.score === x.score))),
  );
}

function withinHull(out: readonly Moment[], ...inputs: (readonly Moment[])[]): boolean {
  const all = inputs.flat();
  if (out.length === 0) return true;
  if (all.length === 0) return false;
  const [lo, hi] = [Math.min(...all.map((x) => x.start)), Math.max(...all.map((x) => x.end))];
  return out.every((x) => x.start >= lo && x.end <= hi);
}

const covers = (ms: readonly Moment[], t: number) => scoreAt(ms, t) !== undefined;

describe('scoreOverTime', () => {
  type Named = Moment & { name: string };
  const n = (name: string, start: number, end: number): Named => ({ name, start, end, score: 1 });
  it.each([
    ['nothing', [], []],
    ['one item: one piece', [n('a', 2, 5)], [[2, 5, 'a']]],
    ['one reversed item: nothing', [n('a', 5, 2)], []],
    [
      'overlapping items split at every start and end',
      [n('a', 0, 4), n('b', 2, 6)],
      [
        [0, 2, 'a'],
        [2, 4, 'a b'],
        [4, 6, 'b'],
      ],
    ],
    [
      'a gap has no piece',
      [n('a', 0, 1), n('b', 3, 4)],
      [
        [0, 1, 'a'],
        [3, 4, 'b'],
      ],
    ],
    [
      'covering items in order of start',
      [n('b', 1, 3), n('a', 0, 3), n('c', 1, 2)],
      [
        [0, 1, 'a'],
        [1, 2, 'a b c'],
        [2, 3, 'a b'],
      ],
    ],
  ])('%s', (_case, items: Named[], expected) => {
    // `covering` is reused from piece to piece: the scorer reads it during the call.
    const seen: string[] = [];
    const pieces = scoreOverTime(items, (covering) => seen.push(covering.map((c) => c.name).join(' ')) - 1);
    expect(pieces.map((p) => [p.start, p.end, seen[p.score]])).toEqual(expected);
  });
});

describe('normalise', () => {
  it.each([
    ['empty', [], []],
    ['sorts', [m(5, 6), m(0, 1)], [m(0, 1), m(5, 6)]],
    ['merges overlapping equal scores', [m(0, 5, 0.5), m(3, 8, 0.5)], [m(0, 8, 0.5)]],
    ['merges touching equal scores', [m(0, 5, 0.5), m(5, 8, 0.5)], [m(0, 8, 0.5)]],
    ['keeps the best score where moments overlap', [m(0, 5, 0.2), m(3, 8, 0.9)], [m(0, 3, 0.2), m(3, 8, 0.9)]],
    ['a better moment inside a weaker one splits it', [m(0, 10, 0.2), m(4, 6, 0.9)], [m(0, 4, 0.2), m(4, 6, 0.9), m(6, 10, 0.2)]],
    ['drops empty, reversed and non-finite moments', [m(3, 3), m(5, 4), m(0, Infinity), m(Number.NaN, 2)], []],
    ['clamps scores', [m(0, 1, 1.5), m(2, 3, -1), m(4, 5, Number.NaN)], [m(0, 1, 1), m(2, 3, 0), m(4, 5, 0)]],
  ])('%s', (_name, input, expected) => {
    expect(normalise(input)).toEqual(expected);
  });

  it('does not mutate its input', () => {
    const input = [m(3, 8, 0.9), m(0, 5, 0.2)];
    const copy = structuredClone(input);
    normalise(input);
    expect(input).toEqual(copy);
  });

  it('is sorted, disjoint, idempotent and keeps the best score at every instant', () => {
    fc.assert(
      fc.property(moments, (a) => {
        const n = normalise(a);
        expect(isNormalised(n)).toBe(true);
        expect(normalise(n)).toEqual(n);
        for (const t of samples(a)) expect(scoreAt(n, t)).toBe(scoreAt(a, t));
      }),
      RUNS,
    );
  });
});

describe('union (OR)', () => {
  it.each([
    ['disjoint', [m(0, 2)], [m(5, 6)], [m(0, 2), m(5, 6)]],
    ['overlapping, best score', [m(0, 4, 0.3)], [m(2, 6, 0.8)], [m(0, 2, 0.3), m(2, 6, 0.8)]],
    ['with nothing', [m(0, 2, 0.3)], [], [m(0, 2, 0.3)]],
  ])('%s', (_name, a, b, expected) => {
    expect(union(a, b)).toEqual(expected);
  });

  it('is the pointwise max, commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(moments, moments, moments, (a, b, c) => {
        const ab = union(a, b);
        expect(isNormalised(ab)).toBe(true);
        expect(ab).toEqual(union(b, a));
        expect(union(ab, c)).toEqual(union(a, union(b, c)));
        expect(union(a, a)).toEqual(normalise(a));
        expect(unionAll([a, b, c])).toEqual(union(ab, c));
        expect(withinHull(ab, a, b)).toBe(true);
        for (const t of samples(a, b)) {
          const [sa, sb] = [scoreAt(a, t), scoreAt(b, t)];
          expect(scoreAt(ab, t)).toBe(sa === undefined ? sb : sb === undefined ? sa : Math.max(sa, sb));
        }
      }),
      RUNS,
    );
  });
});

describe('closeGaps (OR with proximity)', () => {
  it.each([
    ['fills a short gap with the weaker score', [m(0, 5, 0.9), m(8, 10, 0.4)], 3, [m(0, 5, 0.9), m(5, 10, 0.4)]],
    ['leaves a longer gap', [m(0, 5, 0.9), m(9, 10, 0.4)], 3, [m(0, 5, 0.9), m(9, 10, 0.4)]],
    ['nothing to do without proximity', [m(0, 5), m(6, 7)], 0, [m(0, 5), m(6, 7)]],
  ])('%s', (_name, input, gap, expected) => {
    expect(closeGaps(input, gap)).toEqual(expected);
  });

  it('only adds instants, inside the hull, and leaves no gap of at most p', () => {
    fc.assert(
      fc.property(moments, proximity, (a, p) => {
        const closed = closeGaps(a, p);
        expect(isNormalised(closed)).toBe(true);
        expect(withinHull(closed, a)).toBe(true);
        for (const t of samples(a)) if (covers(a, t)) expect(scoreAt(closed, t)).toBe(scoreAt(a, t));
        const runs = coalesce(closed);
        runs.slice(1).forEach((run, i) => expect(run.start - runs[i]!.end).toBeGreaterThan(p));
      }),
      RUNS,
    );
  });
});

describe('intersect (AND)', () => {
  it.each([
    ['the overlap, weaker score', [m(0, 6, 0.9)], [m(4, 10, 0.5)], undefined, [m(4, 6, 0.5)]],
    ['touching moments do not co-occur', [m(0, 5)], [m(5, 10)], undefined, []],
    ['a sliver of overlap is dropped', [m(0, 5)], [m(5 - MIN_MOMENT_SECONDS / 2, 10)], undefined, []],
    ['apart', [m(0, 2)], [m(5, 6)], undefined, []],
    ['proximity: both within p give the stretch covering both', [m(0, 2, 0.9)], [m(5, 6, 0.6)], 3, [m(0, 6, 0.6)]],
    ['proximity: a gap of exactly p counts', [m(0, 2)], [m(5, 6)], 3, [m(0, 6)]],
    ['proximity: a gap beyond p does not', [m(0, 2)], [m(5.5, 6)], 3, []],
    ['proximity: nor with B long before A', [m(10, 12)], [m(0, 2)], 3, []],
    ['proximity: overlapping moments give their hull', [m(0, 10, 0.4)], [m(4, 6, 0.8)], 1, [m(0, 10, 0.4)]],
    ['proximity: B on both sides of A', [m(10, 12, 0.5)], [m(6, 8, 0.9), m(14, 15, 0.7)], 2, [m(6, 15, 0.5)]],
  ])('%s', (_name, a, b, p, expected) => {
    expect(intersect(a, b, p)).toEqual(expected);
  });

  it('is the pointwise min where both match, commutative, and inside both', () => {
    fc.assert(
      fc.property(moments, moments, (a, b) => {
        const ab = intersect(a, b);
        expect(isNormalised(ab)).toBe(true);
        expect(ab).toEqual(intersect(b, a));
        expect(intersect(a, a)).toEqual(normalise(a));
        for (const t of samples(a, b)) {
          const [sa, sb] = [scoreAt(a, t), scoreAt(b, t)];
          // Whole-second inputs never leave slivers, so the oracle needs no tolerance.
          expect(scoreAt(ab, t)).toBe(sa === undefined || sb === undefined ? undefined : Math.min(sa, sb));
        }
      }),
      RUNS,
    );
  });

  it('with proximity: grows with p, stays in the hull, and every stretch holds both', () => {
    fc.assert(
      fc.property(moments, moments, proximity, proximity, (a, b, p, q) => {
        const [near, nearer] = [intersect(a, b, Math.max(p, q)), intersect(a, b, Math.min(p, q))];
        expect(isNormalised(near)).toBe(true);
        expect(withinHull(near, a, b)).toBe(true);
        for (const t of samples(a, b, near)) {
          if (covers(intersect(a, b), t)) expect(covers(nearer, t)).toBe(true);
          if (covers(nearer, t)) expect(covers(near, t)).toBe(true);
        }
        for (const run of coalesce(near)) {
          const inside = (x: Moment) => x.start >= run.start && x.end <= run.end;
          expect(normalise(a).some(inside) && normalise(b).some(inside)).toBe(true);
        }
        const gap = (x: Moment, y: Moment) => Math.max(x.start, y.start) - Math.min(x.end, y.end);
        const anyPair = normalise(a).some((x) => normalise(b).some((y) => gap(x, y) <= Math.max(p, q)));
        expect(near.length > 0).toBe(anyPair);
        const scores = [...a, ...b].map((x) => x.score);
        for (const x of near) expect(scores).toContain(x.score);
      }),
      RUNS,
    );
  });
});

describe('subtract (NOT)', () => {
  it.each([
    ['cuts the middle out, keeping the score', [m(0, 10, 0.7)], [m(4, 6)], [m(0, 4, 0.7), m(6, 10, 0.7)]],
    ['removes a covered moment', [m(2, 4)], [m(0, 10)], []],
    ['untouched when apart', [m(0, 2, 0.3)], [m(5, 6)], [m(0, 2, 0.3)]],
    ['drops a remnant sliver', [m(0, 5)], [m(0, 5 - MIN_MOMENT_SECONDS / 2)], []],
  ])('%s', (_name, a, b, expected) => {
    expect(subtract(a, b)).toEqual(expected);
  });

  it('shares nothing with b, and with a∩b covers exactly a', () => {
    fc.assert(
      fc.property(moments, moments, (a, b) => {
        const rest = subtract(a, b);
        expect(isNormalised(rest)).toBe(true);
        expect(intersect(rest, b)).toEqual([]);
        expect(subtract(a, [])).toEqual(normalise(a));
        const covered = union(rest, intersect(a, b));
        for (const t of samples(a, b)) {
          expect(covers(covered, t)).toBe(covers(a, t));
          if (covers(rest, t)) expect(scoreAt(rest, t)).toBe(scoreAt(a, t));
        }
      }),
      RUNS,
    );
  });
});

describe('followedBy / sequence (THEN)', () => {
  it.each([
    ['B after A: the stretch from A to B, weaker score', [m(0, 2, 0.9)], [m(10, 12, 0.6)], undefined, [m(0, 12, 0.6)]],
    ['B before A does not count', [m(10, 12)], [m(0, 2)], undefined, []],
    ['overlapping, B starting later, counts', [m(0, 6, 0.5)], [m(4, 10, 0.8)], undefined, [m(0, 10, 0.5)]],
    ['the same segment counts', [m(0, 6, 0.5)], [m(0, 6, 0.8)], undefined, [m(0, 6, 0.5)]],
    ['B inside A does not follow it', [m(0, 20)], [m(5, 10)], undefined, []],
    ['proximity: B starting within p after A ends', [m(0, 2)], [m(5, 6)], 3, [m(0, 6)]],
    ['proximity: B starting later than p after A', [m(0, 2)], [m(5.5, 6)], 3, []],
    ['proximity 0: B must start before A ends', [m(0, 2)], [m(2, 3)], 0, [m(0, 3)]],
    ['the tightest A before each B', [m(0, 2, 0.9), m(30, 32, 0.8)], [m(40, 42, 0.7)], undefined, [m(30, 42, 0.7)]],
    [
      'each B pairs with its own A',
      [m(0, 2, 0.9), m(30, 32, 0.8)],
      [m(5, 6, 0.5), m(40, 42, 0.7)],
      undefined,
      [m(0, 6, 0.5), m(30, 42, 0.7)],
    ],
  ])('%s', (_name, a, b, p, expected) => {
    expect(followedBy(a, b, p)).toEqual(expected);
  });

  it.each([
    ['in order', [[m(0, 1)], [m(3, 4)], [m(6, 7)]], undefined, [m(0, 7)]],
    // A stretch from A to B would let C (starting before B) through; the chain does not.
    ['C starting before B does not follow B', [[m(0, 2)], [m(10, 12)], [m(5, 13)]], undefined, []],
    ['proximity applies between neighbours', [[m(0, 1)], [m(3, 4)], [m(9, 10)]], 3, []],
    ['one list is itself', [[m(2, 1), m(0, 1)]], undefined, [m(0, 1)]],
    ['no lists, nothing', [], undefined, []],
  ])('sequence: %s', (_name, lists, p, expected) => {
    expect(sequence(lists, p)).toEqual(expected);
  });

  it('matches exactly when some B follows some A, and each stretch runs from an A start to a B end', () => {
    fc.assert(
      fc.property(moments, moments, fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }), (a, b, p) => {
        const out = followedBy(a, b, p);
        expect(isNormalised(out)).toBe(true);
        expect(withinHull(out, a, b)).toBe(true);
        const [pa, pb] = [normalise(a), normalise(b)];
        const anyPair = pa.some((x) => pb.some((y) => y.start >= x.start && y.end >= x.end && (p === undefined || y.start - x.end <= p)));
        expect(out.length > 0).toBe(anyPair);
        for (const run of coalesce(out)) {
          expect(pa.map((x) => x.start)).toContain(run.start);
          expect(pb.map((y) => y.end)).toContain(run.end);
        }
        const scores = [...a, ...b].map((x) => x.score);
        for (const x of out) expect(scores).toContain(x.score);
      }),
      RUNS,
    );
  });
});

describe('widen and coalesce', () => {
  it.each([
    ['pads both sides, never before 0', [m(1, 2, 0.5)], 2, [m(0, 4, 0.5)]],
    ['padded neighbours keep their own scores', [m(0, 2, 0.5), m(5, 6, 0.9)], 2, [m(0, 3, 0.5), m(3, 8, 0.9)]],
  ])('widen: %s', (_name, input, p, expected) => {
    expect(widen(input, p)).toEqual(expected);
  });

  it('coalesce: one moment per continuous stretch with its best score', () => {
    expect(coalesce([m(0, 6, 0.3), m(6, 12, 0.9), m(20, 22, 0.1)])).toEqual([m(0, 12, 0.9), m(20, 22, 0.1)]);
  });

  it('coalesce: covers the same instants, with runs apart', () => {
    fc.assert(
      fc.property(moments, (a) => {
        const runs = coalesce(a);
        runs.slice(1).forEach((run, i) => expect(run.start).toBeGreaterThan(runs[i]!.end));
        for (const t of samples(a)) expect(covers(runs, t)).toBe(covers(a, t));
      }),
      RUNS,
    );
  });
});

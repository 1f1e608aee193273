import {
  classifyRequestUnits,
  FREE_PLAN_LIMITS,
  limitsOf,
  rateLimitMessage,
  rateLimitHeaders,
  type Category,
  type Dimension,
  type DimensionState,
} from '../src';

describe('the Free plan table of SPEC §8', () => {
  const row = (category: Category) => Object.fromEntries(limitsOf(FREE_PLAN_LIMITS, category).map((l) => [l.dimension, l.limit]));
  it.each([
    ['index', { DPD: 3_000, DPH: 600, RPD: 3_000, RPM: 60 }],
    ['upload', { RPD: 3_000, RPM: 60 }],
    ['search', { RPD: 3_000, RPM: 600 }],
    ['analyze', { DPD: 3_000, DPH: 600, RPD: 1_000, RPM: 60, TPD: 500, TPM: 30 }],
    ['embed_video', { DPD: 3_000, DPH: 600, RPD: 3_000, RPM: 25 }],
    ['embed_audio', { DPD: 3_000, DPH: 600, RPD: 3_000, RPM: 25 }],
    ['embed_text', { RPD: 3_000, RPM: 600 }],
    ['embed_image', { RPD: 3_000, RPM: 600 }],
    ['embed_text_image', { RPD: 3_000, RPM: 600 }],
  ] as const)('%s', (category, expected) => {
    expect(row(category)).toEqual(expected);
  });
});

describe('what a classification counts as in Search', () => {
  const classes = (n: number, prompts: string[]) => Array.from({ length: n }, () => ({ prompts }));
  it.each([
    ['one class of one prompt', classes(1, ['a dog']), 1],
    ['100 classes of one prompt (the amplification of issue 28)', classes(100, ['x'.repeat(990)]), 100],
    ['prompts repeated within a class are searched once', classes(2, ['a', 'b', 'a']), 4],
    ['at most the 100 searches a classification may run', classes(100, ['a', 'b']), 100],
    ['no prompt still counts one request', classes(1, []), 1],
  ])('%s', (_, given, units) => {
    expect(classifyRequestUnits(given)).toBe(units);
  });
});

describe('the 429 message (SPEC §7 rule 2)', () => {
  it.each([
    ['RPM', 60, '2026-11-21T10:01:00.000Z', 'You have exceeded the rate limit (RPM:60/minute), try again after 2026-11-21T10:01:00Z.'],
    ['DPH', 600, '2026-11-21T11:00:00.250Z', 'You have exceeded the rate limit (DPH:600/hour), try again after 2026-11-21T11:00:00Z.'],
    ['TPD', 500, '2026-11-22T00:00:00.000Z', 'You have exceeded the rate limit (TPD:500/day), try again after 2026-11-22T00:00:00Z.'],
  ] as const)('%s', (dimension, limit, reset, message) => {
    expect(rateLimitMessage(dimension, limit, new Date(reset))).toBe(message);
  });
});

describe('rate-limit headers', () => {
  const state = (dimension: Dimension, limit: number, remainingUnits: number, reset: string): DimensionState => ({
    dimension,
    limit,
    remainingUnits,
    resetAt: new Date(reset),
  });

  it('shows only the families of the dimensions given, with Unix resets and the legacy trio', () => {
    expect(rateLimitHeaders([state('RPM', 600, 599, '2026-11-21T10:01:00Z'), state('RPD', 3000, 2999, '2026-11-22T10:00:00Z')])).toEqual({
      'X-RateLimit-Request-Limit': '600',
      'X-RateLimit-Request-Remaining': '599',
      'X-RateLimit-Request-Reset': String(Date.parse('2026-11-21T10:01:00Z') / 1000),
      'X-RateLimit-Limit': '600',
      'X-RateLimit-Remaining': '599',
      'X-RateLimit-Reset': String(Date.parse('2026-11-21T10:01:00Z') / 1000),
    });
  });

  it('shows the window closest to refusing, durations in minutes and tokens in tokens', () => {
    const headers = rateLimitHeaders([
      state('RPM', 60, 59, '2026-11-21T10:01:00Z'),
      state('RPD', 1000, 3, '2026-11-22T10:00:00Z'),
      state('DPH', 600, 600 * 60 - 90, '2026-11-21T11:00:00Z'),
      state('DPD', 3000, 3000 * 60, '2026-11-22T10:00:00Z'),
      state('TPM', 30, 29_500, '2026-11-21T10:01:00Z'),
      state('TPD', 500, 500_000, '2026-11-22T10:00:00Z'),
    ]);
    expect(headers).toMatchObject({
      'X-RateLimit-Request-Limit': '1000',
      'X-RateLimit-Request-Remaining': '3',
      'X-RateLimit-Duration-Limit': '600',
      'X-RateLimit-Duration-Remaining': '598',
      'X-RateLimit-OutputToken-Limit': '30000',
      'X-RateLimit-OutputToken-Remaining': '29500',
    });
  });

  it('gives nothing for an endpoint no dimension applies to', () => {
    expect(rateLimitHeaders([])).toEqual({});
  });
});

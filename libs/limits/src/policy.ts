/**
 * The rate-limit rules of SPEC §8 as data: categories, dimensions and the Free-plan table.
 * Everything here is pure; the counters that enforce it are in counters.ts.
 */

export const CATEGORIES = [
  'index',
  'upload',
  'search',
  'analyze',
  'embed_video',
  'embed_audio',
  'embed_image',
  'embed_text',
  'embed_text_image',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** What a dimension counts. Counters keep the finest unit: requests, seconds of media, tokens. */
export type DimensionKind = 'request' | 'duration' | 'output_token';

export const DIMENSIONS = ['RPM', 'RPD', 'DPH', 'DPD', 'TPM', 'TPD'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface DimensionRule {
  kind: DimensionKind;
  window: 'minute' | 'hour' | 'day';
  windowSeconds: number;
  /** Counter units per unit of the published limit (minutes → seconds, thousands of tokens → tokens). */
  unitsPerLimitUnit: number;
}

export const DIMENSION_RULES: Record<Dimension, DimensionRule> = {
  RPM: { kind: 'request', window: 'minute', windowSeconds: 60, unitsPerLimitUnit: 1 },
  RPD: { kind: 'request', window: 'day', windowSeconds: 86_400, unitsPerLimitUnit: 1 },
  DPH: { kind: 'duration', window: 'hour', windowSeconds: 3_600, unitsPerLimitUnit: 60 },
  DPD: { kind: 'duration', window: 'day', windowSeconds: 86_400, unitsPerLimitUnit: 60 },
  TPM: { kind: 'output_token', window: 'minute', windowSeconds: 60, unitsPerLimitUnit: 1_000 },
  TPD: { kind: 'output_token', window: 'day', windowSeconds: 86_400, unitsPerLimitUnit: 1_000 },
};

/** One effective limit, in the units SPEC §8 publishes (requests, minutes, thousands of tokens). */
export interface RateLimit {
  category: Category;
  dimension: Dimension;
  limit: number;
}

/** A plan's limits; a category/dimension pair that is absent has no limit. */
export type LimitTable = readonly RateLimit[];

type Row = [Category, dpd: number | null, dph: number | null, rpd: number, rpm: number, tpd: number | null, tpm: number | null];

/** SPEC §8, "Free plan", row by row (null = the dash: that dimension does not apply). */
const FREE_ROWS: readonly Row[] = [
  ['index', 3_000, 600, 3_000, 60, null, null],
  ['upload', null, null, 3_000, 60, null, null],
  ['search', null, null, 3_000, 600, null, null],
  ['analyze', 3_000, 600, 1_000, 60, 500, 30],
  ['embed_video', 3_000, 600, 3_000, 25, null, null],
  ['embed_audio', 3_000, 600, 3_000, 25, null, null],
  ['embed_text', null, null, 3_000, 600, null, null],
  ['embed_image', null, null, 3_000, 600, null, null],
  ['embed_text_image', null, null, 3_000, 600, null, null],
];

export const FREE_PLAN_LIMITS: LimitTable = FREE_ROWS.flatMap(([category, dpd, dph, rpd, rpm, tpd, tpm]) => {
  const pairs: [Dimension, number | null][] = [
    ['DPD', dpd],
    ['DPH', dph],
    ['RPD', rpd],
    ['RPM', rpm],
    ['TPD', tpd],
    ['TPM', tpm],
  ];
  return pairs.flatMap(([dimension, limit]) => (limit === null ? [] : [{ category, dimension, limit }]));
});

/** The most searches one classification runs (API-CONTRACT §5.6: at most 100 prompts per request). */
export const CLASSIFY_MAX_SEARCHES = 100;

/**
 * The Search requests a classification counts as: one per search it runs, that is per distinct
 * prompt of each class (a search of one prompt costs the same whatever its options, as a
 * search request does). 100 classes of one prompt are 100 searches, not one.
 */
export function classifyRequestUnits(classes: readonly { prompts: readonly string[] }[]): number {
  const searches = classes.reduce((sum, c) => sum + new Set(c.prompts).size, 0);
  return Math.min(CLASSIFY_MAX_SEARCHES, Math.max(1, searches));
}

export function limitsOf(table: LimitTable, category: Category): RateLimit[] {
  return table.filter((l) => l.category === category);
}

export function isCategory(value: string): value is Category {
  return (CATEGORIES as readonly string[]).includes(value);
}

export function isDimension(value: string): value is Dimension {
  return (DIMENSIONS as readonly string[]).includes(value);
}

/**
 * SPEC §7 rule 2: "exceeded the rate limit (<dimension>:<limit>/<window>), try again after <ISO 8601 UTC>",
 * in the sentence API-CONTRACT §2.5 quotes from the real service.
 */
export function rateLimitMessage(dimension: Dimension, limit: number, resetAt: Date): string {
  const window = DIMENSION_RULES[dimension].window;
  const when = resetAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `You have exceeded the rate limit (${dimension}:${limit}/${window}), try again after ${when}.`;
}

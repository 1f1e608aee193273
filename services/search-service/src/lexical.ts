/**
 * The lexical side of a query: the expanded word groups become PostgreSQL tsquery texts (built
 * from letters and digits only, so user text never reaches the tsquery parser as syntax), and the
 * per-alternative match flags the store returns become a calibrated score (scoring.ts).
 */
import { coverageScore, groupCoverage, type MatchKind } from './scoring';

/** One word (or WordNet collocation) of the query and what may stand for it (expansion.ts). */
export interface TermGroup {
  term: string;
  /**
   * `hypernym`: a broader word of the query's; it matches a segment's own words only (see
   * lexicalPlan). `related`: a word near in meaning by word vectors (semantic.ts), for what was said
   * and shown as text, not for visual labels.
   */
  alternatives: readonly { text: string; weight: number; kind?: 'exact' | 'synonym' | 'hypernym' | 'related' }[];
}

type Alternative = TermGroup['alternatives'][number];

/**
 * The groups with only the alternatives `keep` accepts; the same array when it accepts them all,
 * so that callers can tell (by identity) that two options read the same groups and share a plan. Pure.
 */
export function keepAlternatives(groups: readonly TermGroup[], keep: (alternative: Alternative) => boolean): readonly TermGroup[] {
  if (groups.every((g) => g.alternatives.every(keep))) return groups;
  return groups.map((g) => ({ ...g, alternatives: g.alternatives.filter(keep) }));
}

/** Words of a phrase as tsquery operands: lower case, letters and digits only. */
export function queryWords(phrase: string): string[] {
  return phrase.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Where a segment's words sit in its document (store.ts): A its own words (text, clearly seen labels
 * and their other names), B their broader terms, C the labels seen only tentatively and their other
 * names, D the broader terms of those.
 */
export type DocWeight = 'A' | 'B' | 'C' | 'D';

/**
 * A phrase as a tsquery text: its words in sequence (`<->`), each restricted to `weight` when
 * given. Undefined when the phrase has no words.
 */
export function tsQueryText(phrase: string, weight?: DocWeight): string | undefined {
  const words = queryWords(phrase);
  if (words.length === 0) return undefined;
  return words.map((w) => (weight ? `${w}:${weight}` : w)).join(' <-> ');
}

/** One alternative of the query as the store tests it. */
export interface PlanAlternative {
  /** A tsquery text (english configuration), without weights. */
  query: string;
  /**
   * Matched against the segment's own words only (its `own` column). A broader word of the query
   * against a broader word of a label would make siblings match ("car" → motor vehicle ←
   * "truck"): the query's hypernyms only meet what a segment itself shows.
   */
  ownOnly: boolean;
  /** A word-vector neighbour (kind related): like hypernyms, left out of everyQuery. */
  related?: boolean;
}

export interface LexicalPlan {
  /**
   * Alternatives matched against the whole document (own words and label expansions), as tsquery
   * texts of at most ALTERNATIVES_PER_ARM alternatives each, OR'd by the store; empty: none.
   */
  broadArms: string[];
  /** Alternatives matched against own words only, in arms the same way; empty: none. */
  ownArms: string[];
  /** Every alternative, own-only ones at weight A: orders a pool of candidates (ts_rank on the document). */
  rankQuery: string;
  /**
   * Matches a segment that matches every group through its word or a synonym: the candidates that
   * can score highest. Hypernyms are left out of it: they are often broad ("container"), which the
   * GIN index cannot narrow — with them, a four-word query's first tier cost 15 ms of index scan on
   * the benchmark instead of 0.7 ms. Hypernym-only matches come with the second tier, and so do
   * matches through word-vector neighbours (related), which widened the first tier the same way.
   */
  everyQuery: string;
  /** One entry per usable alternative, in `slots` order. */
  alternatives: PlanAlternative[];
  /** slots[g][a]: the index in `alternatives` of group g's alternative a (undefined: unusable). */
  slots: (number | undefined)[][];
}

const orQuery = (queries: readonly string[]): string | undefined =>
  queries.length > 0 ? queries.map((q) => `(${q})`).join(' | ') : undefined;

/**
 * Alternatives per arm of the partial-match tier (store.ts lexical). A GIN scan tests every row its
 * posting lists yield against the whole tsquery, so one OR of a query's ~40 alternatives cost ~0.5 µs
 * per row of a common word (11k rows of speech: 6 ms). In arms the planner ORs the arms' bitmaps
 * (BitmapOr) and each row is tested against its arm's few alternatives. Issue 31, 2,000 videos, the
 * bench's recorded statements with the backend's CPU: text 15.0 -> 11.3 CPU-ms per request, combined
 * 12.3 -> 11.0, visual 5.5 -> 5.5, the same rows; an arm per alternative cost as much planning as it saved.
 */
export const ALTERNATIVES_PER_ARM = 6;

/**
 * The first tier of a lexical read takes this many times the wanted candidates and keeps the best
 * ranked: the store's statement and the resident index (resident/resident-lexical.ts) alike.
 */
export const RANKED_POOL_FACTOR = 2;

/** The queries OR'd in arms of at most ALTERNATIVES_PER_ARM. Pure. */
export function orArms(queries: readonly string[]): string[] {
  const arms: string[] = [];
  for (let i = 0; i < queries.length; i += ALTERNATIVES_PER_ARM) arms.push(orQuery(queries.slice(i, i + ALTERNATIVES_PER_ARM))!);
  return arms;
}

/** A plan's tsquery text restricted to weight A (the document's own words). */
const weighted = (query: string): string => tsQueryText(query, 'A') ?? query;

export function lexicalPlan(groups: readonly TermGroup[]): LexicalPlan | undefined {
  const alternatives: PlanAlternative[] = [];
  const slots = groups.map((group) =>
    group.alternatives.map((alternative) => {
      const query = tsQueryText(alternative.text);
      if (!query) return undefined;
      alternatives.push({ query, ownOnly: alternative.kind === 'hypernym', ...(alternative.kind === 'related' ? { related: true } : {}) });
      return alternatives.length - 1;
    }),
  );
  if (alternatives.length === 0) return undefined;
  const groupQueries = slots
    .map((groupSlots) => {
      const usable = groupSlots.filter((slot): slot is number => slot !== undefined).map((slot) => alternatives[slot]!);
      const narrow = usable.filter((a) => !a.ownOnly && !a.related);
      return (narrow.length > 0 ? narrow : usable).map((a) => `(${a.ownOnly ? weighted(a.query) : a.query})`);
    })
    .filter((ored) => ored.length > 0)
    .map((ored) => `(${ored.join(' | ')})`);
  return {
    broadArms: orArms(alternatives.filter((a) => !a.ownOnly).map((a) => a.query)),
    ownArms: orArms(alternatives.filter((a) => a.ownOnly).map((a) => a.query)),
    rankQuery: orQuery(alternatives.map((a) => (a.ownOnly ? weighted(a.query) : a.query)))!,
    everyQuery: groupQueries.join(' & '),
    alternatives,
    slots,
  };
}

/** The store's match kinds, one character per alternative (`-`: no match). */
const KIND_OF_CHARACTER: Readonly<Record<string, MatchKind>> = { d: 'direct', e: 'expanded', t: 'tentative', u: 'tentative-expanded' };
/** The same by character code: an array read per alternative of every hit, not a string and a keyed lookup (issue 31). */
const KIND_OF_CODE = new Array<MatchKind | undefined>(128);
for (const [character, kind] of Object.entries(KIND_OF_CHARACTER)) KIND_OF_CODE[character.charCodeAt(0)] = kind;

/**
 * A hit's coverage of the query's word groups from the store's match kinds (one character per
 * alternative: `d` direct, `e` expanded, `t` tentative, `u` tentative and expanded, `-` none):
 * per group, its best alternative's weight.
 */
export function hitCoverage(groups: readonly TermGroup[], plan: LexicalPlan, kinds: string): number[] {
  return groupCoverage(groups, (g, a): MatchKind | undefined => {
    const slot = plan.slots[g]?.[a];
    return slot === undefined ? undefined : KIND_OF_CODE[kinds.charCodeAt(slot)];
  });
}

/** A hit's score: the coverageScore of its hitCoverage. */
export function scoreHit(groups: readonly TermGroup[], plan: LexicalPlan, kinds: string): number {
  return coverageScore(hitCoverage(groups, plan, kinds));
}

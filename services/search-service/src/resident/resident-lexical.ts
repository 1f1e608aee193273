/**
 * The lexical statements of store.ts (lexical, exactPhrase) answered from a resident index
 * (resident-index.ts) instead of the database: the same two tiers per modality (segments matching
 * every word group, a pool of twice the limit ranked by ts_rank; then partial matches as found, in
 * slot order as a bitmap scan finds them), the same match kinds and the same phrase order. Each
 * alternative's lexemes are PostgreSQL's own (`to_tsquery`), normalised by the caller. Pure.
 */
import type { SearchOption } from '../clips';
import { RANKED_POOL_FACTOR, type LexicalPlan } from '../lexical';
import type { LexicalHit, SegmentHit } from '../search-types';
import type { ModalityShard, PostingList, PostingTable, ResidentIndex } from './resident-index';
import { rankAnd, rankOr, type LexemePositions } from './text-rank';
import { positionOf, weightOf, type PhraseTerm } from './tsvector';

/** Weight masks (a bit per weight code): anywhere in the document, or its own words (A) only. */
const ANY_WEIGHT = 0b1111;
const OWN = 1 << 3;
const EXPANDED = 1 << 2;
const TENTATIVE = 1 << 1;
/** Weight D: a match at none of the above (a label's tentative expansion). */
const OTHER = 1 << 0;
/** The weights a match kind is told by, best first. */
const KIND_WEIGHTS = [OWN, EXPANDED, TENTATIVE] as const;

/** An alternative as matched: its phrase's lexemes and the weights they must carry. */
interface Matcher {
  terms: readonly PhraseTerm[];
  weights: number;
}

/** A plan with each alternative's lexemes: what the tiers, the kinds and the rank read. */
export interface ResidentPlan {
  plan: LexicalPlan;
  /** Per plan alternative, its lexemes; [] where it has only stop words (it matches nothing). */
  terms: readonly (readonly PhraseTerm[])[];
  /** The every-group query: per group, its alternatives; groups of stop words only are left out (as PostgreSQL drops them). */
  every: readonly (readonly Matcher[])[];
  /** Any alternative at all (the partial-match tier). */
  any: readonly Matcher[];
  /** The rank query's distinct lexemes, and whether ts_rank reads it as a phrase (calc_rank_and). */
  rankLexemes: readonly string[];
  rankAsPhrase: boolean;
}

/**
 * The plan's tiers and kinds over `terms` (plan.alternatives' lexemes, in order), as PostgreSQL
 * reads the tsqueries store.ts lexical writes. Pure.
 */
export function residentPlan(plan: LexicalPlan, terms: readonly (readonly PhraseTerm[])[]): ResidentPlan {
  const matcher = (slot: number): Matcher => ({ terms: terms[slot]!, weights: plan.alternatives[slot]!.ownOnly ? OWN : ANY_WEIGHT });
  const every = plan.slots
    .map((groupSlots) => {
      const usable = groupSlots.filter((slot): slot is number => slot !== undefined);
      const narrow = usable.filter((slot) => !plan.alternatives[slot]!.ownOnly && !plan.alternatives[slot]!.related);
      return (narrow.length > 0 ? narrow : usable).filter((slot) => terms[slot]!.length > 0).map(matcher);
    })
    .filter((group) => group.length > 0);
  const spoken = terms.filter((t) => t.length > 0);
  return {
    plan,
    terms,
    every,
    any: plan.alternatives.map((_, slot) => matcher(slot)).filter((m) => m.terms.length > 0),
    // In PostgreSQL's order (byte order, as SortAndUniqItems sorts them): single-precision sums depend on it.
    rankLexemes: [...new Set(spoken.flatMap((t) => t.map((term) => term.lexeme)))].sort((a, b) =>
      Buffer.compare(Buffer.from(a), Buffer.from(b)),
    ),
    rankAsPhrase: spoken.length === 1 && spoken[0]!.length > 1,
  };
}

/** A phrase bound to one table: whether a slot holds it at the given weights, and its rarest list (its candidates). */
interface BoundPhrase {
  matches(slot: number, weights: number): boolean;
  candidates: PostingList;
  /** A one-lexeme phrase's list: the weights a slot holds it at are read once (kindsAt), not once per weight asked. */
  single: PostingList | undefined;
}

/** `terms` bound to `table`; undefined where a lexeme is absent (the phrase matches nothing there). */
function bind(table: PostingTable, terms: readonly PhraseTerm[]): BoundPhrase | undefined {
  const lists: PostingList[] = [];
  for (const term of terms) {
    const list = table.lists.get(term.lexeme);
    if (!list) return undefined;
    lists.push(list);
  }
  if (lists.length === 0) return undefined;
  const entries = new Int32Array(lists.length);
  const matches = (slot: number, weights: number): boolean => {
    for (let i = 0; i < lists.length; i++) {
      const entry = lists[i]!.find(slot);
      if (entry < 0 || (lists[i]!.weightsAt(entry) & weights) === 0) return false;
      entries[i] = entry;
    }
    if (lists.length === 1) return true;
    // A phrase: a position of the first lexeme from which each other sits at its offset, every one at an allowed weight.
    const first = table.positionsAt(lists[0]!, entries[0]!);
    for (const packed of first) {
      if (((1 << weightOf(packed)) & weights) === 0) continue;
      const base = positionOf(packed) - terms[0]!.offset;
      let all = true;
      for (let i = 1; i < lists.length && all; i++) {
        all = false;
        for (const other of table.positionsAt(lists[i]!, entries[i]!)) {
          if (positionOf(other) === base + terms[i]!.offset && ((1 << weightOf(other)) & weights) !== 0) {
            all = true;
            break;
          }
        }
      }
      if (all) return true;
    }
    return false;
  };
  return {
    matches,
    candidates: lists.reduce((rarest, list) => (list.count < rarest.count ? list : rarest)),
    single: lists.length === 1 ? lists[0] : undefined,
  };
}

/** A matcher bound to a table. */
interface BoundMatcher {
  phrase: BoundPhrase;
  weights: number;
}

const bindMatcher = (table: PostingTable, matcher: Matcher): BoundMatcher | undefined => {
  const phrase = bind(table, matcher.terms);
  return phrase && { phrase, weights: matcher.weights };
};
const matchesAt = (m: BoundMatcher, slot: number): boolean => m.phrase.matches(slot, m.weights);

/**
 * Calls `visit` with the slots of `lists` in ascending order, each once, until it answers false.
 * Each list is already in slot order: a merge of their heads.
 */
function forEachSlot(lists: readonly PostingList[], visit: (slot: number) => boolean): void {
  const heads = new Int32Array(lists.length);
  for (;;) {
    let lowest = -1;
    for (let i = 0; i < lists.length; i++) {
      if (heads[i]! >= lists[i]!.count) continue;
      const slot = lists[i]!.slotAt(heads[i]!);
      if (lowest < 0 || slot < lowest) lowest = slot;
    }
    if (lowest < 0) return;
    for (let i = 0; i < lists.length; i++) if (heads[i]! < lists[i]!.count && lists[i]!.slotAt(heads[i]!) === lowest) heads[i]!++;
    if (!visit(lowest)) return;
  }
}

/** Which slots a search may read: live ones of its videos. */
type SlotFilter = (slot: number) => boolean;

function slotFilter(index: ResidentIndex, shard: ModalityShard, videoIds: readonly string[] | undefined): SlotFilter {
  if (!videoIds) return (slot) => shard.live[slot]!;
  const videos = new Set(videoIds.map((id) => index.videoNumber(id)).filter((n) => n !== undefined));
  return (slot) => shard.live[slot]! && videos.has(shard.videos[slot]!);
}

/** One modality's candidates: the two tiers of store.ts lexical. */
function candidateSlots(shard: ModalityShard, readable: SlotFilter, plan: ResidentPlan, limit: number): number[] {
  const table = shard.doc;
  const groups = plan.every.map((group) => group.map((m) => bindMatcher(table, m)).filter((b) => b !== undefined));
  // Every group must have a lexeme present for anything to match them all.
  const everyPossible = groups.length > 0 && groups.every((g) => g.length > 0);
  const matchesEvery = (slot: number) => everyPossible && groups.every((group) => group.some((m) => matchesAt(m, slot)));
  const best: number[] = [];
  if (everyPossible) {
    const driver = groups.reduce((rarest, group) =>
      group.reduce((n, m) => n + m.phrase.candidates.count, 0) < rarest.reduce((n, m) => n + m.phrase.candidates.count, 0) ? group : rarest,
    );
    forEachSlot(
      driver.map((m) => m.phrase.candidates),
      (slot) => {
        if (readable(slot) && matchesEvery(slot)) best.push(slot);
        return best.length < limit * RANKED_POOL_FACTOR;
      },
    );
  }
  const ranked = rankedPool(shard, plan, best, limit);
  if (ranked.length >= limit) return ranked;
  const any = plan.any.map((m) => bindMatcher(table, m)).filter((b) => b !== undefined);
  const rest: number[] = [];
  const wanted = limit - ranked.length;
  forEachSlot(
    any.map((m) => m.phrase.candidates),
    (slot) => {
      if (readable(slot) && any.some((m) => matchesAt(m, slot)) && !matchesEvery(slot)) rest.push(slot);
      return rest.length < wanted;
    },
  );
  return [...ranked, ...rest];
}

/** ts_rank(doc, plan.rankQuery) of each slot, as store.ts lexical orders its first tier's pool by. */
export function ranksOf(shard: ModalityShard, plan: ResidentPlan, slots: readonly number[]): number[] {
  const lists = plan.rankLexemes.map((lexeme) => shard.doc.lists.get(lexeme));
  const rank = plan.rankAsPhrase ? rankAnd : rankOr;
  return slots.map((slot) =>
    rank(
      lists.map((list): LexemePositions => {
        const entry = list ? list.find(slot) : -1;
        return entry < 0 ? undefined : shard.doc.positionsAt(list!, entry);
      }),
    ),
  );
}

/** The pool ordered by ts_rank (descending), then id, cut to `limit`. */
function rankedPool(shard: ModalityShard, plan: ResidentPlan, pool: readonly number[], limit: number): number[] {
  if (pool.length === 0) return [];
  const rankOfSlot = ranksOf(shard, plan, pool);
  const ranks = pool.map((slot, i) => ({ slot, rank: rankOfSlot[i]! }));
  ranks.sort((a, b) => b.rank - a.rank || shard.ids[a.slot]! - shard.ids[b.slot]!);
  return ranks.slice(0, limit).map((r) => r.slot);
}

/**
 * The store's match kind of each plan alternative (store.ts lexical: d, e, t, u or -), per slot;
 * `phrases`: the alternatives bound to the shard's documents.
 */
function kindsAt(plan: ResidentPlan, phrases: readonly (BoundPhrase | undefined)[], slot: number): string {
  const alternatives = plan.plan.alternatives;
  // One flat string from character codes: appending a character at a time made a rope of as many strings, per hit.
  kindCodes.length = alternatives.length;
  for (let i = 0; i < alternatives.length; i++) kindCodes[i] = kindOf(alternatives[i]!.ownOnly, phrases[i], slot);
  return String.fromCharCode(...kindCodes);
}

/** kindsAt's character codes, reused from one call to the next (it is synchronous). */
const kindCodes: number[] = [];
const KIND = { direct: 0x64, expanded: 0x65, tentative: 0x74, tentativeExpanded: 0x75, none: 0x2d } as const; // d e t u -

/** One alternative's match kind at a slot (a KIND code): its own words first, then expansions, then tentative labels. */
function kindOf(ownOnly: boolean, phrase: BoundPhrase | undefined, slot: number): number {
  const held = !phrase ? 0 : phrase.single ? singleWeights(phrase.single, slot) : phraseWeights(phrase, slot, ownOnly);
  if (ownOnly) return held & OWN ? KIND.direct : KIND.none;
  if (held === 0) return KIND.none;
  return held & OWN ? KIND.direct : held & EXPANDED ? KIND.expanded : held & TENTATIVE ? KIND.tentative : KIND.tentativeExpanded;
}

/** The weights a slot holds a one-lexeme phrase at (0: not at all): one binary search answers every weight kindOf asks. */
function singleWeights(list: PostingList, slot: number): number {
  const entry = list.find(slot);
  return entry < 0 ? 0 : list.weightsAt(entry);
}

/**
 * A longer phrase's weights as far as kindOf reads them: the first of own words, expansions and
 * tentative labels at which the whole phrase is held, else OTHER when it is held only at D or at mixed
 * weights, else 0. Asked weight by weight, best first, as its positions must line up.
 */
function phraseWeights(phrase: BoundPhrase, slot: number, ownOnly: boolean): number {
  if (ownOnly) return phrase.matches(slot, OWN) ? OWN : 0;
  if (!phrase.matches(slot, ANY_WEIGHT)) return 0;
  for (const weight of KIND_WEIGHTS) if (phrase.matches(slot, weight)) return weight;
  return OTHER;
}

/** A slot's hit, with its match kinds where given (a literal of its own: spreading one into the other cost ~5 % of a search). */
function hitAt(index: ResidentIndex, shard: ModalityShard, modality: SearchOption, slot: number): SegmentHit;
function hitAt(index: ResidentIndex, shard: ModalityShard, modality: SearchOption, slot: number, kinds: string): LexicalHit;
function hitAt(index: ResidentIndex, shard: ModalityShard, modality: SearchOption, slot: number, kinds?: string): SegmentHit | LexicalHit {
  const id = String(shard.ids[slot]);
  const videoId = index.videoIds[shard.videos[slot]!]!;
  const start = shard.starts[slot]!;
  const end = shard.ends[slot]!;
  const text = shard.texts[slot]!;
  const thumbnailKey = shard.thumbnails[slot]!;
  return kinds === undefined
    ? { id, videoId, modality, start, end, text, thumbnailKey }
    : { id, videoId, modality, start, end, text, thumbnailKey, kinds };
}

/** store.ts lexical on a resident index: at most `limit` hits per modality, with their match kinds. */
export function residentLexical(
  index: ResidentIndex,
  videoIds: readonly string[] | undefined,
  modalities: readonly SearchOption[],
  plan: ResidentPlan,
  limit: number,
): LexicalHit[] {
  const hits: LexicalHit[] = [];
  for (const modality of modalities) {
    const shard = index.shard(modality);
    if (!shard) continue;
    const phrases = plan.terms.map((terms) => bind(shard.doc, terms));
    for (const slot of candidateSlots(shard, slotFilter(index, shard, videoIds), plan, limit)) {
      hits.push(hitAt(index, shard, modality, slot, kindsAt(plan, phrases, slot)));
    }
  }
  return hits;
}

/**
 * store.ts exactPhrase on a resident index: conversation segments whose plain words hold the
 * phrase (`terms`: phraseto_tsquery('simple') of it), by video and start, at most `limit`.
 */
export function residentExactPhrase(
  index: ResidentIndex,
  videoIds: readonly string[] | undefined,
  terms: readonly PhraseTerm[],
  limit: number,
): SegmentHit[] {
  const shard = index.shard('conversation');
  const phrase = shard && bind(shard.words, terms);
  if (!shard || !phrase) return [];
  const readable = slotFilter(index, shard, videoIds);
  const found: number[] = [];
  forEachSlot([phrase.candidates], (slot) => {
    if (readable(slot) && phrase.matches(slot, ANY_WEIGHT)) found.push(slot);
    return true;
  });
  const videoOf = (slot: number) => index.videoIds[shard.videos[slot]!]!;
  found.sort(
    (a, b) =>
      (videoOf(a) < videoOf(b) ? -1 : videoOf(a) > videoOf(b) ? 1 : 0) ||
      shard.starts[a]! - shard.starts[b]! ||
      shard.ids[a]! - shard.ids[b]!,
  );
  return found.slice(0, limit).map((slot) => hitAt(index, shard, 'conversation', slot));
}

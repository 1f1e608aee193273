/**
 * Query planning: a query's text as word groups — WordNet's expansions, and word-vector neighbours
 * from the index's own vocabulary when they are loaded in time.
 */
import { currentCaller } from '@vus/core';
import type { TermGroup } from './lexical';
import type { Scope, SearchDeps } from './search-types';
import { withNeighbours } from './semantic';

/**
 * How long a query waits for the semantic neighbours to load (the word vectors: 2–8 s on the first
 * query after start, more on a loaded machine) before it goes on with WordNet alone, at most
 * (neighboursWaitMs: half the time its caller gives it, so 15 s under the gateway's 30 s).
 */
export const NEIGHBOURS_READY_WAIT_MS = 20_000;
/**
 * The share of the time left before the caller's deadline that a query may spend waiting: the rest
 * is the search's, which runs while the loading goes on beside it (seconds on a loaded machine).
 */
export const NEIGHBOURS_WAIT_SHARE = 0.5;

/**
 * How long a query may wait for the neighbours: NEIGHBOURS_READY_WAIT_MS, but never so long that the
 * caller's deadline passes before the search answers (a gRPC client's own 10 s default, say). Pure.
 */
export function neighboursWaitMs(nowMs: number, deadline: Date | undefined): number {
  if (!deadline) return NEIGHBOURS_READY_WAIT_MS;
  return Math.max(0, Math.min(NEIGHBOURS_READY_WAIT_MS, Math.floor((deadline.getTime() - nowMs) * NEIGHBOURS_WAIT_SHARE)));
}

/** The most words of an index compared with a query's words (semantic neighbours). */
const VOCABULARY_LIMIT = 50_000;
/**
 * An index's vocabulary is read again after this long: a new video's words become neighbours
 * within it (its segments are searchable at once). Each new vocabulary is packed again (semantic.ts:
 * about 0.2 s for 7,000 words here), so not every minute.
 */
const VOCABULARY_TTL_MS = 10 * 60_000;

/** The query's word groups, with word-vector neighbours when `withWordNeighbours`. */
export type QueryGroups = (scope: Scope, text: string, withWordNeighbours: boolean) => Promise<TermGroup[]>;

export function createQueryGroups(
  deps: Pick<SearchDeps, 'store' | 'expand' | 'neighbours' | 'neighboursReady' | 'clock' | 'logger'>,
): QueryGroups {
  const vocabularies = new Map<string, { words: Promise<string[]>; until: number }>();

  /** The index's vocabulary, read at most once per VOCABULARY_TTL_MS per index (a few hundred indexes kept). */
  function vocabularyOf(scope: Scope): Promise<string[]> {
    const key = `${scope.orgId}/${scope.indexId}`;
    const now = deps.clock.now().getTime();
    const held = vocabularies.get(key);
    if (held && held.until > now) return held.words;
    if (vocabularies.size >= 500) vocabularies.clear();
    const words = deps.store.vocabulary(scope.orgId, scope.indexId, VOCABULARY_LIMIT);
    vocabularies.set(key, { words, until: now + VOCABULARY_TTL_MS });
    words.catch(() => vocabularies.delete(key));
    return words;
  }

  /** The query's word groups, with word-vector neighbours from the index's vocabulary when available. */
  return async function semanticGroups(scope, text, withWordNeighbours) {
    const groups = deps.expand(text);
    const neighbours = deps.neighbours;
    if (!neighbours || !withWordNeighbours || groups.length === 0) return groups;
    // Deadlines are wall-clock instants: Date.now(), not the injected clock (a manual one in tests).
    const waitMs = neighboursWaitMs(Date.now(), currentCaller()?.deadline);
    if (deps.neighboursReady && !(await settlesWithin(deps.neighboursReady(), waitMs))) {
      deps.logger.warn({ waitedMs: waitMs }, 'semantic neighbours still loading: this query is expanded with WordNet only');
    }
    const vocabulary = await vocabularyOf(scope);
    return withNeighbours(groups, (word, exclude) => neighbours(word, vocabulary, exclude));
  };
}

/** Whether `promise` settles within `ms` (it is not cancelled either way). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

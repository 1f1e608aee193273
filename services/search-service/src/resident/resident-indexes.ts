/**
 * The indexes search-service holds in the process (issue 31): an index is loaded on its first
 * search, in the background (searches read the database meanwhile), and brought up to date
 * before each search by asking which of its videos changed after the generation it holds (one
 * indexed statement; any replica's writes count, migration 0010). Indexes are kept while their
 * segments fit in a budget, least recently searched evicted first; an index larger than the
 * budget is searched on the database, as before.
 */
import type { Logger } from '@vus/core';
import type { SearchOption } from '../clips';
import type { LexicalPlan } from '../lexical';
import type { LexicalHit, Scope, SearchStore, SegmentHit } from '../search-types';
import { ResidentIndex, type ResidentSegment } from './resident-index';
import { residentExactPhrase, residentLexical, residentPlan } from './resident-lexical';
import { parsePhraseQuery, parseTsVector, type PhraseTerm } from './tsvector';

/** A segment row as the database gives it to a resident index: its hit's fields and its documents in their text forms. */
export interface ResidentRow extends SegmentHit {
  doc: string;
  /** The plain words (conversation only; null otherwise). */
  words: string | null;
}

/** What resident indexes read of the database (store.ts implements it). */
export interface ResidentSource {
  /** The index's videos whose segments changed after generation `since`, and the newest generation among them (`since` if none). */
  videoChanges(orgId: string, indexId: string, since: number): Promise<{ videoIds: string[]; generation: number }>;
  /** The segments of these videos. */
  residentSegments(orgId: string, indexId: string, videoIds: readonly string[]): Promise<ResidentRow[]>;
  segmentCount(orgId: string, indexId: string): Promise<number>;
  /**
   * Each text as PostgreSQL normalises it, in tsquery text form: `lexical` as store.ts lexical
   * (to_tsquery english), `phrase` as store.ts exactPhrase (phraseto_tsquery simple).
   */
  normalizedQueries(kind: 'lexical' | 'phrase', texts: readonly string[]): Promise<string[]>;
}

export interface ResidentOptions {
  /** Segments held in all (each about 0.6 KB with its postings); 0: none, every search reads the database. */
  maxSegments: number;
  logger: Logger;
  now?: () => number;
  /** Called when an index has been loaded (tests, benches). */
  onLoaded?: ((orgId: string, indexId: string) => void) | undefined;
}

/** Videos whose segments are read per statement while loading (the engine serves other statements between them). */
const LOAD_BATCH_VIDEOS = 200;
/** How long an index found too large, or whose load failed, is searched on the database before it is tried again. */
const RETRY_AFTER_MS = 10 * 60_000;
/** Normalised texts kept per kind (a query's words and phrases; they recur across queries). */
const MAX_NORMALIZED = 100_000;

interface Entry {
  orgId: string;
  indexId: string;
  index?: ResidentIndex;
  generation: number;
  /** Not searchable from memory before this time (too large, or its load failed); undefined while loading or once loaded. */
  retryAt?: number;
  syncing?: Promise<void>;
  /** The sync that starts when the running one ends, shared by the searches that arrive meanwhile. */
  nextSync?: Promise<void>;
}

export function toResidentSegment(row: ResidentRow): ResidentSegment {
  return {
    id: Number(row.id),
    videoId: row.videoId,
    modality: row.modality,
    start: Number(row.start),
    end: Number(row.end),
    text: row.text,
    thumbnailKey: row.thumbnailKey,
    doc: parseTsVector(row.doc),
    words: row.words ? parseTsVector(row.words) : [],
  };
}

/**
 * `store` with its lexical and exact-phrase statements answered from resident indexes where one is
 * loaded, and from the store otherwise.
 */
export function withResidentIndexes<S extends SearchStore & ResidentSource>(store: S, options: ResidentOptions): S {
  if (options.maxSegments <= 0) return store;
  const now = options.now ?? Date.now;
  const { logger } = options;
  /** In least recently searched order (a search moves its entry to the end). */
  const entries = new Map<string, Entry>();
  const normalized = { lexical: new Map<string, PhraseTerm[] | null>(), phrase: new Map<string, PhraseTerm[] | null>() };

  const heldSegments = () => [...entries.values()].reduce((n, e) => n + (e.index?.segmentCount ?? 0), 0);

  /** Drops the least recently searched loaded indexes until `wanted` more segments fit. */
  function makeRoom(wanted: number, keep: Entry): void {
    for (const [key, entry] of entries) {
      if (heldSegments() + wanted <= options.maxSegments) return;
      if (entry !== keep && entry.index) entries.delete(key);
    }
  }

  async function load(entry: Entry): Promise<void> {
    const { orgId, indexId } = entry;
    try {
      const count = await store.segmentCount(orgId, indexId);
      if (count > options.maxSegments) {
        logger.info(
          { orgId, indexId, segments: count, maxSegments: options.maxSegments },
          'index too large to hold in memory: searched on the database',
        );
        entry.retryAt = now() + RETRY_AFTER_MS;
        return;
      }
      makeRoom(count, entry);
      const started = now();
      const index = new ResidentIndex();
      const { videoIds, generation } = await store.videoChanges(orgId, indexId, 0);
      for (let i = 0; i < videoIds.length; i += LOAD_BATCH_VIDEOS) {
        const batch = videoIds.slice(i, i + LOAD_BATCH_VIDEOS);
        index.replaceVideos(batch, (await store.residentSegments(orgId, indexId, batch)).map(toResidentSegment));
      }
      index.trim();
      Object.assign(entry, { index, generation });
      logger.info({ orgId, indexId, segments: index.segmentCount, ms: now() - started }, 'index held in memory');
      options.onLoaded?.(orgId, indexId);
    } catch (error) {
      logger.warn({ err: error, orgId, indexId }, 'index could not be loaded into memory: searched on the database');
      entry.retryAt = now() + RETRY_AFTER_MS;
    }
  }

  async function catchUp(entry: Entry): Promise<void> {
    const { videoIds, generation } = await store.videoChanges(entry.orgId, entry.indexId, entry.generation);
    if (videoIds.length > 0) {
      const rows = await store.residentSegments(entry.orgId, entry.indexId, videoIds);
      entry.index!.replaceVideos(videoIds, rows.map(toResidentSegment));
      if (entry.index!.segmentCount > options.maxSegments) {
        // Grown past the budget on its own: searched on the database from now on, tried again later.
        Object.assign(entry, { index: undefined, retryAt: now() + RETRY_AFTER_MS });
        return;
      }
      makeRoom(0, entry);
    }
    entry.generation = generation;
  }

  /** Catches up with the changes committed before this call: joins the next sync, never one already running. */
  function sync(entry: Entry): Promise<void> {
    if (!entry.syncing) {
      entry.syncing = catchUp(entry).finally(() => (entry.syncing = undefined));
      return entry.syncing;
    }
    entry.nextSync ??= entry.syncing
      .catch(() => undefined)
      .then(() => {
        entry.nextSync = undefined;
        return sync(entry);
      });
    return entry.nextSync;
  }

  /** The scope's index, up to date, if it is held; otherwise undefined (and its load started if due). */
  async function resident(scope: Scope): Promise<ResidentIndex | undefined> {
    const key = `${scope.orgId}\u0000${scope.indexId}`;
    let entry = entries.get(key);
    if (entry && entry.retryAt !== undefined && now() >= entry.retryAt) entry = undefined;
    if (!entry) {
      entry = { orgId: scope.orgId, indexId: scope.indexId, generation: 0 };
      entries.set(key, entry);
      void load(entry);
      return undefined;
    }
    entries.delete(key);
    entries.set(key, entry);
    if (!entry.index) return undefined;
    try {
      await sync(entry);
    } catch (error) {
      logger.warn(
        { err: error, orgId: scope.orgId, indexId: scope.indexId },
        'resident index could not catch up: searched on the database',
      );
      return undefined;
    }
    return entries.get(key) === entry ? entry.index : undefined;
  }

  /** Each text's lexemes as PostgreSQL reads it (cached per text); null: a form the resident index does not evaluate. */
  async function termsOf(kind: 'lexical' | 'phrase', texts: readonly string[]): Promise<(PhraseTerm[] | null)[]> {
    const cache = normalized[kind];
    const known = new Map<string, PhraseTerm[] | null>(texts.flatMap((t) => (cache.has(t) ? [[t, cache.get(t)!] as const] : [])));
    const missing = [...new Set(texts.filter((t) => !known.has(t)))];
    if (missing.length > 0) {
      const forms = await store.normalizedQueries(kind, missing);
      if (cache.size + missing.length > MAX_NORMALIZED) cache.clear();
      missing.forEach((text, i) => {
        const terms = parsePhraseQuery(forms[i]!) ?? null;
        cache.set(text, terms);
        known.set(text, terms);
      });
    }
    return texts.map((t) => known.get(t)!);
  }

  return {
    ...store,

    async lexical(scope: Scope, modalities: readonly SearchOption[], plan: LexicalPlan, limit: number): Promise<LexicalHit[]> {
      // Words are normalised only for a held index (an index read on the database never needs them).
      const index = await resident(scope);
      const terms = index
        ? await termsOf(
            'lexical',
            plan.alternatives.map((a) => a.query),
          )
        : [];
      if (!index || terms.some((t) => t === null)) return store.lexical(scope, modalities, plan, limit);
      return residentLexical(index, scope.videoIds, modalities, residentPlan(plan, terms as PhraseTerm[][]), limit);
    },

    async exactPhrase(scope: Scope, phrase: string, limit: number): Promise<SegmentHit[]> {
      const index = await resident(scope);
      // Per word as written (PostgreSQL's parser never reads a token across white space), each cached.
      const chunks = phrase.split(/\s+/).filter(Boolean);
      const terms = index ? await termsOf('phrase', chunks) : [];
      if (!index || terms.some((t) => t === null)) return store.exactPhrase(scope, phrase, limit);
      return residentExactPhrase(index, scope.videoIds, chainPhrases(terms as PhraseTerm[][]), limit);
    },
  };
}

/** Phrases one after another as one (each chunk's words follow the previous chunk's last). Pure. */
export function chainPhrases(phrases: readonly (readonly PhraseTerm[])[]): PhraseTerm[] {
  const chained: PhraseTerm[] = [];
  let next = 0;
  for (const phrase of phrases) {
    if (phrase.length === 0) continue;
    for (const term of phrase) chained.push({ lexeme: term.lexeme, offset: next + term.offset });
    next += phrase[phrase.length - 1]!.offset + 1;
  }
  return chained;
}

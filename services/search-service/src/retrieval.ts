/**
 * Per-option retrieval: which segments answer a query's text or image through each requested
 * option (full text per option, exact phrases, nearest vectors, detected objects), each scored.
 */
import { ApiError } from '@vus/core';
import { composedMatches, type SearchOption, type SegmentMatch } from './clips';
import { hitCoverage, keepAlternatives, lexicalPlan, scoreHit, type LexicalPlan, type TermGroup } from './lexical';
import type { QueryGroups } from './query-groups';
import { meanDirection } from './query-image';
import { coverageScore, vectorScore } from './scoring';
import type { ConversationOption, LexicalHit, Query, Scope, SearchDeps, SearchParams, SegmentHit } from './search-types';

/** Candidates read per option and per query path. */
const CANDIDATES_PER_OPTION = 200;
const NEAREST_CANDIDATES = 200;

/**
 * Image-to-image similarities run higher than text-to-image ones: the same object photographed
 * twice sits around 0.8–0.9 in CLIP space, unrelated pictures around 0.4–0.5.
 */
const IMAGE_QUERY_BAND = { floor: 0.5, ceiling: 0.85 } as const;
/**
 * The bundled scene descriptor's band (embed-service's visual model without CLIP, `scene`): the same
 * shot seen again scores about 0.95–1; another angle of the same scene about 0.85 (a medium
 * match); the same footage in half the frame about 0.7 (weak); unrelated shots 0.2–0.6 (nothing).
 */
const SCENE_QUERY_BAND = { floor: 0.6, ceiling: 0.92 } as const;
const imageQueryBand = (model: string) => (model === 'scene' ? SCENE_QUERY_BAND : IMAGE_QUERY_BAND);

/** How many candidates each path reads: per option (full text, exact phrase) and nearest vectors. */
export interface Candidates {
  lexical: number;
  nearest: number;
}

export function createRetrieval(deps: Pick<SearchDeps, 'store' | 'models'> & { semanticGroups: QueryGroups }) {
  const { store, semanticGroups } = deps;

  /** Segments answering a text through the lexical options (and exact_match), scored; `candidates` per option and path. */
  async function textMatches(
    scope: Scope,
    text: string,
    options: readonly SearchOption[],
    conversationOption: ConversationOption,
    candidates: Candidates = { lexical: CANDIDATES_PER_OPTION, nearest: NEAREST_CANDIDATES },
  ): Promise<SegmentMatch[]> {
    const matches: SegmentMatch[] = [];
    const lexicalOptions = options.filter((o) => !(o === 'conversation' && conversationOption === 'exact_match'));
    // Word neighbours serve speech matched by meaning, on-screen text and logos only.
    const forMeaning = lexicalOptions.some((o) => o !== 'visual' && !(o === 'conversation' && conversationOption === 'lexical'));
    const groups = lexicalOptions.length === 0 ? [] : await semanticGroups(scope, text, forMeaning);
    // `lexical` speech: the query's own words only (the same groups, so coverage lines up with the other options').
    const spoken = conversationOption === 'lexical';
    const spokenGroups = spoken ? keepAlternatives(groups, (a) => a.kind === 'exact') : groups;
    // Visual labels are expanded by WordNet at ingest: word-vector neighbours are for words said and shown.
    const labelGroups = keepAlternatives(groups, (a) => a.kind !== 'related');
    const groupsOf = (option: SearchOption) => (option === 'conversation' ? spokenGroups : option === 'visual' ? labelGroups : groups);
    // One plan per distinct set of groups (keepAlternatives answers the same array when it drops
    // nothing), so options whose groups are the same share a plan, and are read by one statement,
    // each with its own candidates (so that a common option cannot crowd out the others').
    const planOfGroups = new Map<readonly TermGroup[], LexicalPlan | undefined>();
    const reading = (option: SearchOption, optionGroups: readonly TermGroup[]) => {
      if (!planOfGroups.has(optionGroups)) planOfGroups.set(optionGroups, lexicalPlan(optionGroups));
      return { option, optionGroups, plan: planOfGroups.get(optionGroups) };
    };
    const readings = lexicalOptions.map((option) => {
      const own = reading(option, groupsOf(option));
      // Speech without a usable word of the query's own is read by meaning, as before.
      return own.plan || option !== 'conversation' ? own : reading(option, groups);
    });
    const optionsByPlan = new Map<LexicalPlan, SearchOption[]>();
    for (const { option, plan } of readings) {
      if (plan) optionsByPlan.set(plan, [...(optionsByPlan.get(plan) ?? []), option]);
    }
    const hitsByOption = new Map<SearchOption, LexicalHit[]>();
    await Promise.all(
      [...optionsByPlan].map(async ([plan, planOptions]) => {
        for (const hit of await store.lexical(scope, planOptions, plan, candidates.lexical)) {
          const held = hitsByOption.get(hit.modality);
          if (held) held.push(hit);
          else hitsByOption.set(hit.modality, [hit]);
        }
      }),
    );
    for (const { option, optionGroups, plan } of readings) {
      if (!plan) continue;
      // Lexical speech counts the words said, not what a line stands for (its speech terms: `e`).
      const saidOnly = spoken && option === 'conversation' && optionGroups === spokenGroups;
      for (const hit of hitsByOption.get(option) ?? []) {
        const coverage = hitCoverage(optionGroups, plan, saidOnly ? hit.kinds.replaceAll('e', '-') : hit.kinds);
        const score = coverageScore(coverage);
        if (score > 0) matches.push(matchOf(hit, option, score, coverage));
      }
    }
    if (options.includes('conversation') && conversationOption === 'exact_match' && text.trim()) {
      for (const hit of await store.exactPhrase(scope, text, candidates.lexical)) matches.push(matchOf(hit, 'conversation', 1));
    }
    // Without stored vectors (PostgreSQL without pgvector) nothing is near: no query vector asked of embed-service.
    if (options.includes('visual') && (await store.vectorsEnabled())) {
      const query = await deps.models.embed(scope.orgId, { text });
      if (query) {
        for (const hit of await store.nearest(scope, query.model, [...query.vector], candidates.nearest)) {
          const score = vectorScore(hit.similarity);
          if (score > 0) matches.push(matchOf(hit, 'visual', score));
        }
      }
    }
    return matches;
  }

  /**
   * Segments answering an image: the nearest vectors of embed-service's visual model (CLIP, or the
   * bundled scene descriptor: shots that look like it) where vectors are stored, and the objects
   * the detector sees in it, searched as visual labels. Both count; a moment with both scores higher.
   */
  async function imageMatches(scope: Scope, images: readonly Buffer[]): Promise<SegmentMatch[]> {
    const [query, labels] = await Promise.all([
      (await store.vectorsEnabled()) ? imagesVector(scope, images) : undefined,
      imagesLabels(scope, images),
    ]);
    if (!query && !labels) {
      throw new ApiError(
        'model_unavailable',
        'Searching by image needs an image model or the object detector, and neither is available on this server.',
      );
    }
    const matches: SegmentMatch[] = [];
    if (query) {
      const band = imageQueryBand(query.model);
      for (const hit of await store.nearest(scope, query.model, [...query.vector], NEAREST_CANDIDATES)) {
        const score = vectorScore(hit.similarity, band);
        if (score > 0) matches.push(matchOf(hit, 'visual', score));
      }
    }
    if (labels && labels.length > 0) {
      // Each detected object is one alternative of one group: a scene showing any of them matches.
      const groups: TermGroup[] = [{ term: labels.join(' '), alternatives: labels.map((label) => ({ text: label, weight: 1 })) }];
      const plan = lexicalPlan(groups);
      if (plan) {
        const hits = await store.lexical(scope, ['visual'], plan, CANDIDATES_PER_OPTION);
        matches.push(...hits.map((hit) => matchOf(hit, 'visual', scoreHit(groups, plan, hit.kinds))));
      }
    }
    return matches;
  }

  /** Several images (v1.3) are one query: their embeddings' mean direction (query-image.ts meanDirection). */
  async function imagesVector(scope: Scope, images: readonly Buffer[]): Promise<{ model: string; vector: Float32Array } | undefined> {
    const embedded = [];
    // One at a time: each embedding is a model run, and ten at once would hold ten images' tensors.
    for (const image of images) embedded.push(await deps.models.embed(scope.orgId, { image }));
    const first = embedded[0];
    if (!first || embedded.some((e) => !e || e.model !== first.model)) return undefined;
    return embedded.length === 1 ? first : { model: first.model, vector: meanDirection(embedded.map((e) => e!.vector)) };
  }

  /** The objects the detector sees in any of the images (a scene showing any of them matches); undefined without a detector. */
  async function imagesLabels(scope: Scope, images: readonly Buffer[]): Promise<string[] | undefined> {
    let labels: string[] | undefined;
    for (const image of images) {
      const found = await deps.models.imageLabels(scope.orgId, image);
      if (found) labels = [...new Set([...(labels ?? []), ...found])];
    }
    return labels;
  }

  /** Segments answering a query: its text's, its image's, or (both given) the moments both answer. */
  async function matchesOf(
    scope: Scope,
    query: Query,
    params: Pick<SearchParams, 'options' | 'conversationOption'>,
  ): Promise<SegmentMatch[]> {
    if (scope.videoIds && scope.videoIds.length === 0) return [];
    const byText = query.text !== undefined ? await textMatches(scope, query.text, params.options, params.conversationOption) : undefined;
    const byImage = query.image ? await imageMatches(scope, [query.image, ...(query.moreImages ?? [])]) : undefined;
    if (byText && byImage) return composedMatches(byText, byImage);
    return byText ?? byImage ?? [];
  }

  return { textMatches, matchesOf };
}

/** A hit as a match (written out, not spread: spreading was ~5 % of a text search's CPU, issue 31). */
function matchOf(hit: SegmentHit, option: SearchOption, score: number, coverage?: number[]): SegmentMatch {
  const { videoId, start, end, text, thumbnailKey } = hit;
  return coverage
    ? { videoId, start, end, option, score, text, thumbnailKey, coverage }
    : { videoId, start, end, option, score, text, thumbnailKey };
}

/**
 * Combined queries (API-CONTRACT §5.5.1): the proto tree is checked and resolved into a QueryNode,
 * its leaves are the single searches to run, and `evaluate` combines their moments per video with
 * the interval algebra of ./intervals.
 *
 * Error parameters are named by their place in the JSON grammar (`query.$and[1].text`), since that
 * is what the API client wrote.
 */
import { ApiError, errors } from '@vus/core';
import { checkQueryText } from '@vus/domain';
import type { CombinedQuery } from '@vus/grpc/types/search/v1/CombinedQuery';
import { SEARCH_OPTIONS } from './clips';
import { intersect, closeGaps, normalise, sequence, subtract, unionAll, type Moment } from '@vus/domain';

export const CONVERSATION_OPTIONS = ['semantic', 'exact_match'] as const;
export type ConversationOption = (typeof CONVERSATION_OPTIONS)[number];

/** Bounds on hostile trees; the gateway's wire parser has the same ones. */
export const MAX_QUERY_DEPTH = 10;
export const MAX_QUERY_LEAVES = 20;

export interface Leaf {
  kind: 'leaf';
  text: string;
  searchOptions: string[];
  conversationOption: ConversationOption;
}

export type QueryNode =
  Leaf | { kind: 'and' | 'or' | 'then'; operands: QueryNode[]; proximity?: number } | { kind: 'not'; origin: QueryNode; sub: QueryNode };

export interface Globals {
  searchOptions: readonly string[];
  conversationOption: string; // '' when the request has none
}

/** Moments per video id. */
export type VideoMoments = ReadonlyMap<string, readonly Moment[]>;

/**
 * Checks a request's tree and resolves every leaf's options: a leaf's own options win, then the
 * request's; the conversation option defaults to semantic.
 */
export function fromProtoQuery(query: CombinedQuery | null | undefined, globals: Globals): QueryNode {
  const resolved = {
    searchOptions: checkOptions(globals.searchOptions, 'search_options'),
    conversationOption: checkConversationOption(globals.conversationOption, 'conversation_option'),
  };
  const walker = { leaves: 0 };
  return resolve(query, 'query', 1, resolved, walker);
}

interface Resolved {
  searchOptions: string[];
  conversationOption: ConversationOption | undefined;
}

function resolve(
  query: CombinedQuery | null | undefined,
  path: string,
  depth: number,
  globals: Resolved,
  walker: { leaves: number },
): QueryNode {
  if (!query) throw errors.notProvided(path);
  if (depth > MAX_QUERY_DEPTH) throw errors.invalid(path, `Combined queries can be nested at most ${MAX_QUERY_DEPTH} levels deep.`);
  const kind = nodeKind(query, path);
  if (kind === 'leaf') {
    walker.leaves += 1;
    if (walker.leaves > MAX_QUERY_LEAVES) {
      throw errors.invalid('query', `A combined query can hold at most ${MAX_QUERY_LEAVES} subqueries.`);
    }
    return resolveLeaf(query.leaf!, path, globals);
  }
  if (kind === 'not') {
    const not = query.not!;
    if (!not.origin) throw errors.notProvided(`${path}.$not.origin`);
    if (!not.sub) throw errors.notProvided(`${path}.$not.sub`);
    return {
      kind: 'not',
      origin: resolve(not.origin, `${path}.$not.origin`, depth + 1, globals, walker),
      sub: resolve(not.sub, `${path}.$not.sub`, depth + 1, globals, walker),
    };
  }
  const group = query.group!;
  const operator = group.operator;
  if (operator !== 'and' && operator !== 'or' && operator !== 'then') {
    throw errors.invalid(path, `The operator must be one of $and, $or, $then or $not, not "${operator}".`);
  }
  const operands = group.operands ?? [];
  const at = `${path}.$${operator}`;
  if (operands.length === 0) throw errors.invalid(at, 'It needs at least one subquery.');
  const proximity = group.proximity;
  if (proximity !== undefined && proximity !== null) {
    if (typeof proximity !== 'number' || !Number.isFinite(proximity) || proximity < 0) {
      throw errors.invalid(`${path}.proximity`, 'It must be a number of seconds, 0 or more.');
    }
    if (operands.length < 2) throw errors.invalid(`${path}.proximity`, 'Proximity needs at least two subqueries.');
  }
  return {
    kind: operator,
    operands: operands.map((operand, i) => resolve(operand, `${at}[${i}]`, depth + 1, globals, walker)),
    ...(proximity !== undefined && proximity !== null ? { proximity } : {}),
  };
}

function nodeKind(query: CombinedQuery, path: string): 'leaf' | 'group' | 'not' {
  const present = (['leaf', 'group', 'not'] as const).filter((key) => query[key]);
  if (query.node && query[query.node]) return query.node;
  if (present.length === 1) return present[0]!;
  if (present.length === 0) throw errors.notProvided(path);
  throw errors.invalid(path, 'A subquery is either a text, $and, $or, $then or $not, not several.');
}

function resolveLeaf(leaf: NonNullable<CombinedQuery['leaf']>, path: string, globals: Resolved): Leaf {
  const text = (leaf.text ?? '').trim();
  if (!text) throw errors.notProvided(`${path}.text`);
  checkQueryText(`${path}.text`, text);
  const own = checkOptions(leaf.search_options ?? [], `${path}.search_options`);
  const searchOptions = own.length > 0 ? own : globals.searchOptions;
  if (searchOptions.length === 0) throw errors.notProvided('search_options');
  const conversationOption =
    checkConversationOption(leaf.conversation_option ?? '', `${path}.conversation_option`) ?? globals.conversationOption ?? 'semantic';
  return { kind: 'leaf', text, searchOptions, conversationOption };
}

/** Known options, without duplicates, in the order given. */
function checkOptions(options: readonly string[], param: string): string[] {
  const unknown = options.find((option) => !(SEARCH_OPTIONS as readonly string[]).includes(option));
  if (unknown !== undefined) {
    throw new ApiError(
      'parameter_invalid',
      `The ${param} parameter is invalid. "${unknown}" is not a search option; use ${SEARCH_OPTIONS.join(', ')}.`,
      { param },
    );
  }
  return [...new Set(options)];
}

function checkConversationOption(option: string, param: string): ConversationOption | undefined {
  if (option === '') return undefined;
  if ((CONVERSATION_OPTIONS as readonly string[]).includes(option)) return option as ConversationOption;
  throw errors.invalid(param, `Use ${CONVERSATION_OPTIONS.join(' or ')}.`);
}

/**
 * Identifies a single search: the same text with the same options (in any order) is one search.
 * The conversation option only counts when conversation is searched.
 */
export function leafKey(leaf: Leaf): string {
  const options = [...new Set(leaf.searchOptions)].sort();
  const conversation = options.includes('conversation') ? leaf.conversationOption : '';
  return JSON.stringify([leaf.text, options, conversation]);
}

/** The distinct single searches a tree needs, in the order they first appear. */
export function leavesOf(node: QueryNode): (Leaf & { key: string })[] {
  const byKey = new Map<string, Leaf & { key: string }>();
  const visit = (n: QueryNode): void => {
    if (n.kind === 'leaf') {
      const key = leafKey(n);
      if (!byKey.has(key)) byKey.set(key, { ...n, key });
    } else if (n.kind === 'not') {
      visit(n.origin);
      visit(n.sub);
    } else {
      n.operands.forEach(visit);
    }
  };
  visit(node);
  return [...byKey.values()];
}

/**
 * Combines the leaves' moments per video:
 * - and: folded left with `intersect`; a group's proximity applies at each step (so with
 *   proximity each further operand must lie within p of the stretch found so far).
 * - or: the union of all operands, then gaps of at most the proximity filled.
 * - then: `sequence` over the operands (a chain, not a fold), proximity between neighbours.
 * - not: origin minus sub.
 * Videos left without moments are absent from the result.
 */
export function evaluate(node: QueryNode, results: (leafKey: string) => VideoMoments | undefined): Map<string, Moment[]> {
  switch (node.kind) {
    case 'leaf':
      return compact(results(leafKey(node)) ?? new Map<string, readonly Moment[]>(), (moments) => normalise(moments));
    case 'not': {
      const sub = evaluate(node.sub, results);
      return compact(evaluate(node.origin, results), (moments, videoId) => subtract(moments, sub.get(videoId) ?? []));
    }
    case 'and': {
      const [first, ...rest] = node.operands.map((operand) => evaluate(operand, results));
      return rest.reduce(
        (acc, next) => compact(acc, (moments, videoId) => intersect(moments, next.get(videoId) ?? [], node.proximity)),
        first ?? new Map<string, Moment[]>(),
      );
    }
    case 'or': {
      const operands = node.operands.map((operand) => evaluate(operand, results));
      const videoIds = new Set(operands.flatMap((operand) => [...operand.keys()]));
      const all = new Map([...videoIds].map((videoId) => [videoId, operands.map((operand) => operand.get(videoId) ?? [])]));
      return compact(all, (lists) => closeGaps(unionAll(lists), node.proximity ?? 0));
    }
    case 'then': {
      const [first, ...rest] = node.operands.map((operand) => evaluate(operand, results));
      const inAll = [...(first?.keys() ?? [])].filter((videoId) => rest.every((operand) => operand.has(videoId)));
      const all = new Map(inAll.map((videoId) => [videoId, [first!, ...rest].map((operand) => operand.get(videoId)!)]));
      return compact(all, (lists) => sequence(lists, node.proximity));
    }
  }
}

/** Maps every video's value to moments and leaves out the videos with none. */
function compact<T>(videos: ReadonlyMap<string, T>, toMoments: (value: T, videoId: string) => Moment[]): Map<string, Moment[]> {
  const out = new Map<string, Moment[]>();
  for (const [videoId, value] of videos) {
    const moments = toMoments(value, videoId);
    if (moments.length > 0) out.set(videoId, moments);
  }
  return out;
}

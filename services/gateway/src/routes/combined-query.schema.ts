import { errors } from '@vus/core';
import type { CombinedQuery__Input } from '@vus/grpc/types/search/v1/CombinedQuery';
import { z } from 'zod';
import { looseList } from '../http/coerce';
import { checkQueryText } from '../http/text-limits';
import { V12_OPTIONS } from '../versions';

/**
 * The combined-query grammar of API-CONTRACT §5.5.1 (v1.1 and v1.2; gone in v1.3):
 *
 *   Q    := Leaf | { "$and" | "$or" | "$then": [Q, ...], "proximity"?: seconds } | { "$not": { "origin": Q, "sub": Q } }
 *   Leaf := { "text": string, "search_options"?: string[] | string, "conversation_option"?: "semantic" | "exact_match" }
 *
 * Errors name the place in the client's JSON (`query.$and[1].text`). Unknown plain keys are
 * ignored like everywhere else; an unknown `$` key is an error, since it is a misspelt operator.
 */

/** Bounds on hostile trees; search-service checks the same ones. */
export const MAX_QUERY_DEPTH = 10;
export const MAX_QUERY_LEAVES = 20;

const GROUP_OPERATORS = { $and: 'and', $or: 'or', $then: 'then' } as const;
type GroupKey = keyof typeof GROUP_OPERATORS;
const OPERATOR_KEYS = [...Object.keys(GROUP_OPERATORS), '$not'];

/** v1 called exact matching of speech `transcription`. */
const conversationOption = z
  .enum(['semantic', 'exact_match', 'transcription'])
  .transform((option) => (option === 'transcription' ? 'exact_match' : option));

const leafSchema = z.object({
  text: z.string({ error: 'expected a string' }).trim().min(1, 'It must not be empty.'),
  search_options: looseList(z.enum(V12_OPTIONS)).nullish(),
  conversation_option: conversationOption.nullish(),
});

/** A request's (or a leaf's) conversation option in canonical form; '' when absent. */
export function parseConversationOption(value: unknown, param = 'conversation_option'): string {
  if (value === undefined || value === null) return '';
  const parsed = conversationOption.safeParse(value);
  if (!parsed.success) throw errors.invalid(param, 'Use semantic or exact_match.');
  return parsed.data;
}

/** Parses the `query` of a combined search into the proto tree search-service takes. */
export function parseCombinedQuery(value: unknown, path = 'query'): CombinedQuery__Input {
  return parseNode(value, path, 1, { leaves: 0 });
}

function parseNode(value: unknown, path: string, depth: number, counter: { leaves: number }): CombinedQuery__Input {
  if (value === undefined || value === null) throw errors.notProvided(path);
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw errors.invalid(path, 'Expected a query object: {"text": ...} or one of $and, $or, $then, $not.');
  }
  if (depth > MAX_QUERY_DEPTH) throw errors.invalid(path, `Combined queries can be nested at most ${MAX_QUERY_DEPTH} levels deep.`);
  const node = value as Record<string, unknown>;
  const operators = Object.keys(node).filter((key) => key.startsWith('$'));
  const unknown = operators.find((key) => !OPERATOR_KEYS.includes(key));
  if (unknown !== undefined) throw errors.invalid(`${path}.${unknown}`, 'Use $and, $or, $then or $not.');
  if (operators.length > 1) throw errors.invalid(path, `Use one operator per object, not ${operators.join(' and ')}.`);
  const operator = operators[0];
  if (operator !== undefined && 'text' in node) throw errors.invalid(path, `An object is either a text or an ${operator}, not both.`);
  if (operator === undefined || operator === '$not') {
    if (node.proximity !== undefined && node.proximity !== null) {
      throw errors.invalid(`${path}.proximity`, 'Proximity applies to $and, $or and $then.');
    }
  }
  if (operator === undefined) {
    counter.leaves += 1;
    if (counter.leaves > MAX_QUERY_LEAVES) {
      throw errors.invalid('query', `A combined query can hold at most ${MAX_QUERY_LEAVES} subqueries.`);
    }
    return { leaf: parseLeaf(node, path) };
  }
  if (operator === '$not') {
    const at = `${path}.$not`;
    const not = node.$not;
    if (not === undefined || not === null) throw errors.notProvided(at);
    if (typeof not !== 'object' || Array.isArray(not)) throw errors.invalid(at, 'Expected {"origin": ..., "sub": ...}.');
    const { origin, sub } = not as Record<string, unknown>;
    if (origin === undefined || origin === null) throw errors.notProvided(`${at}.origin`);
    if (sub === undefined || sub === null) throw errors.notProvided(`${at}.sub`);
    return {
      not: { origin: parseNode(origin, `${at}.origin`, depth + 1, counter), sub: parseNode(sub, `${at}.sub`, depth + 1, counter) },
    };
  }
  const at = `${path}.${operator}`;
  const operands = node[operator];
  if (!Array.isArray(operands)) throw errors.invalid(at, 'Expected a list of subqueries.');
  if (operands.length === 0) throw errors.invalid(at, 'It needs at least one subquery.');
  const proximity = parseProximity(node.proximity, `${path}.proximity`);
  if (proximity !== undefined && operands.length < 2) throw errors.invalid(`${path}.proximity`, 'Proximity needs at least two subqueries.');
  return {
    group: {
      operator: GROUP_OPERATORS[operator as GroupKey],
      operands: operands.map((operand, i) => parseNode(operand, `${at}[${i}]`, depth + 1, counter)),
      ...(proximity === undefined ? {} : { proximity }),
    },
  };
}

function parseLeaf(node: Record<string, unknown>, path: string) {
  const parsed = leafSchema.safeParse(node);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [field] = issue.path;
    const param = `${path}${issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')}`;
    if (issue.code === 'invalid_type' && node[String(field)] === undefined) throw errors.notProvided(param);
    throw errors.invalid(param, issue.message);
  }
  const leaf = parsed.data;
  checkQueryText(`${path}.text`, leaf.text);
  return { text: leaf.text, search_options: leaf.search_options ?? [], conversation_option: leaf.conversation_option ?? '' };
}

/** Seconds, 0 or more; a number or a numeric string. */
function parseProximity(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    throw errors.invalid(param, 'It must be a number of seconds, 0 or more.');
  }
  return seconds;
}

/**
 * Fills a JSON schema from a video's evidence (response_format json_schema, extractive provider).
 * Each property is filled by what its name asks for — a title, a summary, topics, chapters,
 * moments, times, whether something is shown — and by its type; nothing is made up: a value
 * that the evidence cannot give is the answer that says so, zero items, or false.
 *
 * The schema is the caller's, so the work it may cause is bounded by construction: every step
 * (a schema visited, an option or enum member looked at) and every value produced is counted
 * against FILL_LIMITS, arrays and strings have caps, and a `$ref` that comes back to a schema
 * being filled is a value that cannot be given (left out where optional) rather than a recursion.
 * Past a limit, the answer is a 400 on response_format naming what was asked for.
 *
 * Length (about 420 lines): the walk, its budgets and the fillers by name and type share one
 * counter and one memo of questions; split, each part would take both as parameters.
 */
import { errors } from '@vus/core';
import { mergeRepeats, type Timeline } from './evidence';
import type { Chapter, Gist, Highlight } from './provider';
import { tokenize } from '@vus/wordnet';
import { clock, contentWords } from './text';

export interface SchemaContext {
  timeline: Timeline;
  gist: Gist;
  summary: { summary: string };
  chapters: Chapter[];
  highlights: Highlight[];
  /** The extractive answer to a question (the property's name, say). */
  answer(question: string): string;
}

type Schema = Record<string, unknown>;

/** One element an array of objects is built from: a chapter, a moment, a piece of evidence. */
interface Element {
  index: number;
  start: number;
  end: number;
  title: string;
  text: string;
}

const has = (name: string, ...stems: string[]) => stems.some((s) => name.includes(s));

/** `chapterTitle`, `chapter-title`, `Chapter Title` → `chapter title`. */
function nameWords(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .toLowerCase()
    .trim();
}

export const FILL_LIMITS = {
  /** Units of work: a schema visited, an anyOf option, enum member or allOf member looked at. */
  steps: 20_000,
  /** Values produced (an object, an array, each scalar; a repeated array item counts each time). */
  nodes: 5_000,
  /** Schemas filled inside each other (properties, items, $refs, anyOf …). */
  depth: 64,
  /** `$ref`s followed to reach one schema (a `$ref` to a `$ref` …). */
  refHops: 32,
  /** Items of one array: a minItems above it is refused. */
  arrayItems: 1_000,
  /** Characters of one string: a minLength above it is refused. */
  stringLength: 16 * 1024,
  /**
   * Characters of the whole answer as JSON (about): twice what max_tokens (4096) lets out, since
   * a longer answer is cut anyway (and cut JSON is no answer); counting its tokens costs too.
   */
  outputChars: 32 * 1024,
  /** Distinct open questions asked of the evidence (each reads the whole timeline). */
  questions: 32,
} as const;

/** What filling one schema has cost, against FILL_LIMITS (the highest depth reached). */
export interface FillUsage {
  steps: number;
  nodes: number;
  depth: number;
  outputChars: number;
  questions: number;
}

export const noFillUsage = (): FillUsage => ({ steps: 0, nodes: 0, depth: 0, outputChars: 0, questions: 0 });

const refused = (why: string) => errors.invalid('response_format', why);

/** A schema no finite value can fill here: `false`, or a `$ref` back to a schema being filled. */
const NO_VALUE: unique symbol = Symbol('no value');
/** A value, or NO_VALUE (the type says which values may be it). */
type Filled = unknown;

const isSchemaObject = (value: unknown): value is Schema => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value of a local JSON pointer (`#/definitions/a`), own properties only; undefined when none. */
function pointerTarget(root: Schema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * The schema a `$ref` leads to, through `$ref`s to `$ref`s (at most FILL_LIMITS.refHops); the
 * schema itself when it has no local `$ref` (one to elsewhere was refused by the compiler or is
 * filled by its other keywords).
 */
function resolveRef(root: Schema, schema: Schema): Schema | boolean {
  let node: Schema = schema;
  for (let hops = 0; typeof node.$ref === 'string'; hops++) {
    if (hops >= FILL_LIMITS.refHops)
      throw refused(`The json_schema's $refs lead to more $refs ${FILL_LIMITS.refHops} times (a $ref cycle names no schema).`);
    let target: unknown;
    try {
      target = pointerTarget(root, node.$ref);
    } catch {
      target = undefined; // a malformed %-escape
    }
    if (typeof target === 'boolean') return target;
    if (!isSchemaObject(target)) return node;
    node = target;
  }
  return node;
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') as string | undefined) ?? 'null';
  if (typeof type === 'string') return type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

function clamp(value: number, schema: Schema): number {
  let v = value;
  if (typeof schema.minimum === 'number') v = Math.max(v, schema.minimum);
  if (typeof schema.maximum === 'number') v = Math.min(v, schema.maximum);
  if (typeof schema.exclusiveMinimum === 'number' && v <= schema.exclusiveMinimum)
    v = schema.exclusiveMinimum + (schema.type === 'integer' ? 1 : 0.001);
  if (typeof schema.exclusiveMaximum === 'number' && v >= schema.exclusiveMaximum)
    v = schema.exclusiveMaximum - (schema.type === 'integer' ? 1 : 0.001);
  return schema.type === 'integer' ? Math.round(v) : v;
}

/** A text cut to maxLength, padded to minLength, never longer than FILL_LIMITS.stringLength. */
function sized(text: string, schema: Schema): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  if (min > FILL_LIMITS.stringLength)
    throw refused(`A minLength of ${min} asks for a longer string than the ${FILL_LIMITS.stringLength} characters this server fills.`);
  const max = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : Infinity, FILL_LIMITS.stringLength);
  const cut = text.length > max ? text.slice(0, max) : text;
  return cut.length < min ? cut.padEnd(min, '.') : cut;
}

/** Characters of a value as JSON, counted once per value (a const or enum member is the caller's). */
const jsonLength = (value: unknown): number => (typeof value === 'string' ? value.length + 2 : (JSON.stringify(value)?.length ?? 4));

/**
 * A value for `schema` from the evidence. `usage` (given to watch it) counts the work and the
 * output; a schema that needs more than FILL_LIMITS is refused (parameter_invalid, response_format).
 */
export function fillSchema(schema: object, ctx: SchemaContext, usage: FillUsage = noFillUsage()): unknown {
  const root = schema as Schema;
  const timeline = ctx.timeline;
  const evidenceWords = new Set(timeline.items.flatMap((e) => tokenize(e.text)));
  const shown = (name: string) => {
    const terms = contentWords(nameWords(name));
    return terms.length > 0 && terms.some((t) => evidenceWords.has(t));
  };

  // Each counter is checked before it grows: it never passes its limit.
  const step = (units = 1) => {
    if (usage.steps + units > FILL_LIMITS.steps)
      throw refused(`The json_schema takes more than ${FILL_LIMITS.steps} steps to fill; make it smaller.`);
    usage.steps += units;
  };
  /** Counts values produced and their characters as JSON. */
  const produce = (nodes: number, chars: number) => {
    if (usage.nodes + nodes > FILL_LIMITS.nodes) throw refused(`The json_schema asks for more than ${FILL_LIMITS.nodes} values.`);
    if (usage.outputChars + chars > FILL_LIMITS.outputChars)
      throw refused(`The json_schema asks for an answer longer than ${FILL_LIMITS.outputChars} characters.`);
    usage.nodes += nodes;
    usage.outputChars += chars;
  };
  const scalar = <T>(value: T): T => {
    produce(1, jsonLength(value));
    return value;
  };

  const elementLists = new Map<string, Element[]>();
  const elementsFor = (name: string): Element[] => {
    const kinds = has(name, 'chapter', 'section', 'scene', 'segment', 'part')
      ? 'chapters'
      : has(name, 'highlight', 'moment', 'key')
        ? 'highlights'
        : has(name, 'speech', 'quote', 'transcript', 'said', 'dialog', 'line')
          ? 'speech'
          : has(name, 'text', 'caption', 'ocr')
            ? 'text'
            : has(name, 'object', 'label', 'thing', 'entit', 'people', 'person')
              ? 'label'
              : has(name, 'logo', 'brand')
                ? 'logo'
                : 'speech text logo label';
    // Each list is made once per fill: a schema may name the same kind many times.
    let list = elementLists.get(kinds);
    if (!list) {
      list = listElements(kinds);
      elementLists.set(kinds, list);
    }
    return list;
  };
  const listElements = (kinds: string): Element[] => {
    if (kinds === 'chapters')
      return ctx.chapters.map((c) => ({ index: c.chapterNumber, start: c.start, end: c.end, title: c.title, text: c.summary }));
    if (kinds === 'highlights')
      return ctx.highlights.map((h, i) => ({ index: i, start: h.start, end: h.end, title: h.highlight, text: h.summary }));
    const wanted = kinds.split(' ');
    return mergeRepeats(timeline.items.filter((e) => wanted.includes(e.kind))).map((e, i) => ({
      index: i,
      start: e.start,
      end: e.end,
      title: e.text,
      text: e.text,
    }));
  };

  const stringsFor = (name: string): string[] => {
    if (has(name, 'hashtag', 'tag', 'keyword')) return ctx.gist.hashtags ?? [];
    if (has(name, 'topic', 'categor', 'genre', 'theme')) return ctx.gist.topics ?? [];
    return elementsFor(name).map((e) => e.title);
  };

  const names = new Map<string, string>();
  const nameWordsOf = (name: string): string => {
    let n = names.get(name);
    if (n === undefined) names.set(name, (n = nameWords(name)));
    return n;
  };

  const answers = new Map<string, string>();
  const answer = (question: string): string => {
    let text = answers.get(question);
    if (text === undefined) {
      if (usage.questions >= FILL_LIMITS.questions)
        throw refused(
          `The json_schema asks more than ${FILL_LIMITS.questions} open questions (strings the evidence answers by their names).`,
        );
      usage.questions += 1;
      text = ctx.answer(question);
      answers.set(question, text);
    }
    return text;
  };

  /** Schemas entered through a $ref on the way here: a $ref back to one of them is a cycle. */
  const entered = new Set<Schema>([root]);

  const fill = (raw: unknown, name: string, element: Element | undefined, depth: number): Filled => {
    step();
    if (depth > FILL_LIMITS.depth) throw refused(`The json_schema nests values deeper than ${FILL_LIMITS.depth} levels.`);
    if (depth > usage.depth) usage.depth = depth;
    if (raw === false) return NO_VALUE;
    const schema = isSchemaObject(raw) ? raw : {};
    if (typeof schema.$ref !== 'string') return fillNode(schema, name, element, depth);
    const target = resolveRef(root, schema);
    if (target === false) return NO_VALUE;
    if (target === true) return fillNode({}, name, element, depth);
    if (entered.has(target)) return NO_VALUE;
    entered.add(target);
    try {
      return fillNode(target, name, element, depth);
    } finally {
      entered.delete(target);
    }
  };

  const fillNode = (node: Schema, name: string, element: Element | undefined, depth: number): Filled => {
    if ('const' in node) return scalar(node.const);
    if (Array.isArray(node.enum) && node.enum.length > 0) {
      step(node.enum.length);
      const haystack = new Set(tokenize(element?.text ?? ctx.summary.summary));
      return scalar(node.enum.find((v) => typeof v === 'string' && tokenize(v).some((w) => haystack.has(w))) ?? node.enum[0]);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options: unknown = node[key];
      if (Array.isArray(options) && options.length > 0) {
        // Options that are not null first; the next option when one cannot be filled.
        const isNull = (o: unknown) => {
          const option = isSchemaObject(o) ? resolveRef(root, o) : o;
          return isSchemaObject(option) && option.type === 'null';
        };
        const all = options as unknown[];
        const ordered = [...all.filter((o) => !isNull(o)), ...all.filter(isNull)];
        for (const option of ordered) {
          step();
          const merged = isSchemaObject(option) ? { ...node, [key]: undefined, ...option } : option;
          const value = fill(merged, name, element, depth + 1);
          if (value !== NO_VALUE) return value;
        }
        return NO_VALUE;
      }
    }
    const allOf: unknown = node.allOf;
    if (Array.isArray(allOf)) {
      step(allOf.length);
      const members = (allOf as unknown[]).map((s) => (isSchemaObject(s) ? resolveRef(root, s) : s));
      if (members.includes(false)) return NO_VALUE;
      const merged: Schema = Object.assign({}, ...members.filter(isSchemaObject), { ...node, allOf: undefined }) as Schema;
      return fill(merged, name, element, depth + 1);
    }
    const n = nameWordsOf(name);
    switch (typeOf(node)) {
      case 'object': {
        const properties = isSchemaObject(node.properties) ? node.properties : {};
        const required = new Set(Array.isArray(node.required) ? node.required : []);
        const entries: [string, unknown][] = [];
        produce(1, 2);
        for (const [key, child] of Object.entries(properties)) {
          const value = fill(child, key, element, depth + 1);
          if (value === NO_VALUE) {
            if (required.has(key)) return NO_VALUE;
            continue;
          }
          produce(0, jsonLength(key) + 2);
          entries.push([key, value]);
        }
        return Object.fromEntries(entries);
      }
      case 'array':
        return fillArray(node, name, n, element, depth);
      case 'string': {
        let text: string;
        if (element) {
          if (has(n, 'start', 'begin', 'time', 'timestamp')) text = clock(element.start);
          else if (has(n, 'end', 'finish', 'stop')) text = clock(element.end);
          else if (has(n, 'title', 'name', 'heading', 'label', 'highlight', 'tag', 'topic')) text = element.title;
          else text = element.text;
        } else if (has(n, 'title', 'headline', 'name')) text = ctx.gist.title ?? timeline.title;
        else if (has(n, 'summary', 'description', 'overview', 'synopsis', 'abstract', 'about')) text = ctx.summary.summary;
        else if (has(n, 'topic', 'categor', 'genre', 'theme')) text = ctx.gist.topics?.[0] ?? '';
        else if (has(n, 'duration', 'length')) text = clock(timeline.duration);
        else text = answer(n);
        return scalar(sized(text, node));
      }
      case 'number':
      case 'integer': {
        if (element) {
          if (has(n, 'end', 'finish', 'stop')) return scalar(clamp(element.end, node));
          if (has(n, 'start', 'begin', 'time', 'timestamp')) return scalar(clamp(element.start, node));
          if (has(n, 'number', 'index', 'id', 'order', 'position')) return scalar(clamp(element.index, node));
        }
        if (has(n, 'duration', 'length', 'seconds', 'end')) return scalar(clamp(timeline.duration, node));
        if (has(n, 'count', 'number', 'total', 'how many')) return scalar(clamp(elementsFor(n).length, node));
        return scalar(clamp(0, node));
      }
      case 'boolean':
        return scalar(shown(n));
      case 'null':
        return scalar(null);
      default:
        return scalar(sized(element ? element.text : answer(n), node));
    }
  };

  const fillArray = (node: Schema, name: string, n: string, element: Element | undefined, depth: number): Filled => {
    const min = typeof node.minItems === 'number' ? node.minItems : 0;
    if (min > FILL_LIMITS.arrayItems)
      throw refused(`A minItems of ${min} asks for more than the ${FILL_LIMITS.arrayItems} items this server fills in one array.`);
    const max = Math.min(typeof node.maxItems === 'number' ? node.maxItems : Infinity, FILL_LIMITS.arrayItems);
    const items = node.items;
    const itemSchema = isSchemaObject(items) ? resolveRef(root, items) : items === false ? false : {};
    const itemType = isSchemaObject(itemSchema) ? typeOf(itemSchema) : undefined;
    produce(1, 2);
    const sources: Element[] =
      itemType === 'object' || itemType === 'number' || itemType === 'integer'
        ? elementsFor(n)
        : itemType === 'string'
          ? stringsFor(n).map((s) => ({ index: 0, start: 0, end: 0, title: s, text: s }))
          : [];
    // Items beyond `max` would be cut (or refused by maxItems): they are not filled at all.
    const wanted = node.uniqueItems === true ? Math.min(sources.length, FILL_LIMITS.arrayItems) : Math.min(sources.length, max);
    let values: unknown[] = [];
    /** What the last item cost: a repeated item costs it again. */
    let lastCost = { nodes: 0, chars: 0 };
    for (const source of sources.slice(0, wanted)) {
      const before = { nodes: usage.nodes, chars: usage.outputChars };
      const value =
        itemType === 'number' || itemType === 'integer'
          ? scalar(clamp(source.start, itemSchema as Schema))
          : fill(items, name, source, depth + 1);
      if (value === NO_VALUE) break;
      produce(0, 1);
      lastCost = { nodes: usage.nodes - before.nodes, chars: usage.outputChars - before.chars };
      values.push(value);
    }
    if (values.length === 0 && min > 0 && sources.length > 0) return NO_VALUE;
    if (node.uniqueItems === true) values = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()].slice(0, max);
    // Too few: the last item repeats (a schema that demands more than the video holds).
    while (values.length < min && values.length > 0 && node.uniqueItems !== true) {
      step();
      produce(Math.max(1, lastCost.nodes), lastCost.chars);
      values.push(values[values.length - 1]);
    }
    return values;
  };

  const value = fill(root, '', undefined, 1);
  if (value === NO_VALUE)
    throw refused('No finite value fills the json_schema: a required property $refs back to a schema that holds it, or is false.');
  return value;
}

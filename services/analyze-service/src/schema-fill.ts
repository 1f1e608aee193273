/**
 * Fills a JSON schema from a video's evidence (response_format json_schema, extractive provider).
 * Each property is filled by what its name asks for — a title, a summary, topics, chapters,
 * moments, times, whether something is shown — and by its type; nothing is made up: a value
 * that the evidence cannot give is the answer that says so, zero items, or false.
 */
import { mergeRepeats, type Timeline } from './evidence';
import type { Chapter, Gist, Highlight } from './provider';
import { clock, contentWords, words } from './text';

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

function resolveRef(root: Schema, schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = (node as Schema | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node && typeof node === 'object' ? resolveRef(root, node as Schema) : schema;
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

function sized(text: string, schema: Schema): string {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const cut = text.length > max ? text.slice(0, max) : text;
  return cut.length < min ? cut.padEnd(min, '.') : cut;
}

export function fillSchema(schema: object, ctx: SchemaContext): unknown {
  const root = schema as Schema;
  const timeline = ctx.timeline;
  const evidenceWords = new Set(timeline.items.flatMap((e) => words(e.text)));
  const shown = (name: string) => {
    const terms = contentWords(nameWords(name));
    return terms.length > 0 && terms.some((t) => evidenceWords.has(t));
  };

  const elementsFor = (name: string): Element[] => {
    if (has(name, 'chapter', 'section', 'scene', 'segment', 'part')) {
      return ctx.chapters.map((c) => ({ index: c.chapterNumber, start: c.start, end: c.end, title: c.title, text: c.summary }));
    }
    if (has(name, 'highlight', 'moment', 'key')) {
      return ctx.highlights.map((h, i) => ({ index: i, start: h.start, end: h.end, title: h.highlight, text: h.summary }));
    }
    const kinds = has(name, 'speech', 'quote', 'transcript', 'said', 'dialog', 'line')
      ? ['speech']
      : has(name, 'text', 'caption', 'ocr')
        ? ['text']
        : has(name, 'object', 'label', 'thing', 'entit', 'people', 'person')
          ? ['label']
          : has(name, 'logo', 'brand')
            ? ['logo']
            : ['speech', 'text', 'logo', 'label'];
    return mergeRepeats(timeline.items.filter((e) => kinds.includes(e.kind))).map((e, i) => ({
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

  const fill = (raw: Schema, name: string, element: Element | undefined): unknown => {
    const node = resolveRef(root, raw);
    if ('const' in node) return node.const;
    if (Array.isArray(node.enum) && node.enum.length > 0) {
      const haystack = new Set(words(element?.text ?? ctx.summary.summary));
      return node.enum.find((v) => typeof v === 'string' && words(v).some((w) => haystack.has(w))) ?? node.enum[0];
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = node[key];
      if (Array.isArray(options) && options.length > 0) {
        const option = (options as Schema[]).find((o) => resolveRef(root, o).type !== 'null') ?? (options[0] as Schema);
        return fill({ ...node, [key]: undefined, ...resolveRef(root, option) }, name, element);
      }
    }
    if (Array.isArray(node.allOf)) {
      const merged: Schema = Object.assign({}, ...(node.allOf as Schema[]).map((s) => resolveRef(root, s)), {
        ...node,
        allOf: undefined,
      }) as Schema;
      return fill(merged, name, element);
    }
    const n = nameWords(name);
    switch (typeOf(node)) {
      case 'object': {
        const properties = (node.properties ?? {}) as Record<string, Schema>;
        return Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, fill(child, key, element)]));
      }
      case 'array': {
        const items = (node.items && typeof node.items === 'object' && !Array.isArray(node.items) ? node.items : {}) as Schema;
        const itemType = typeOf(resolveRef(root, items));
        let values: unknown[] =
          itemType === 'object'
            ? elementsFor(n).map((e) => fill(items, name, e))
            : itemType === 'string'
              ? stringsFor(n).map((s) => fill(items, name, { index: 0, start: 0, end: 0, title: s, text: s }))
              : itemType === 'number' || itemType === 'integer'
                ? elementsFor(n).map((e) => clamp(e.start, resolveRef(root, items)))
                : [];
        if (node.uniqueItems === true) values = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
        if (typeof node.maxItems === 'number') values = values.slice(0, node.maxItems);
        const min = typeof node.minItems === 'number' ? node.minItems : 0;
        // Too few: the last item repeats (a schema that demands more than the video holds).
        while (values.length < min && values.length > 0 && node.uniqueItems !== true) values.push(values[values.length - 1]);
        return values;
      }
      case 'string': {
        if (element) {
          if (has(n, 'start', 'begin', 'time', 'timestamp')) return sized(clock(element.start), node);
          if (has(n, 'end', 'finish', 'stop')) return sized(clock(element.end), node);
          if (has(n, 'title', 'name', 'heading', 'label', 'highlight', 'tag', 'topic')) return sized(element.title, node);
          return sized(element.text, node);
        }
        if (has(n, 'title', 'headline', 'name')) return sized(ctx.gist.title ?? timeline.title, node);
        if (has(n, 'summary', 'description', 'overview', 'synopsis', 'abstract', 'about')) return sized(ctx.summary.summary, node);
        if (has(n, 'topic', 'categor', 'genre', 'theme')) return sized(ctx.gist.topics?.[0] ?? '', node);
        if (has(n, 'duration', 'length')) return sized(clock(timeline.duration), node);
        return sized(ctx.answer(n), node);
      }
      case 'number':
      case 'integer': {
        if (element) {
          if (has(n, 'end', 'finish', 'stop')) return clamp(element.end, node);
          if (has(n, 'start', 'begin', 'time', 'timestamp')) return clamp(element.start, node);
          if (has(n, 'number', 'index', 'id', 'order', 'position')) return clamp(element.index, node);
        }
        if (has(n, 'duration', 'length', 'seconds', 'end')) return clamp(timeline.duration, node);
        if (has(n, 'count', 'number', 'total', 'how many')) return clamp(elementsFor(n).length, node);
        return clamp(0, node);
      }
      case 'boolean':
        return shown(n);
      case 'null':
        return null;
      default:
        return sized(element ? element.text : ctx.answer(n), node);
    }
  };
  return fill(root, '', undefined);
}

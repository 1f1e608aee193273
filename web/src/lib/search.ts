/**
 * What the search form sends (API-CONTRACT §5.5): the multipart fields of v1.2's POST /search-v2,
 * and the JSON body of POST /combined-search built from the small query builder. Pure: the
 * components hold the state, these say what it means on the wire.
 */
export const SEARCH_OPTIONS = ['visual', 'conversation', 'text_in_video', 'logo'] as const;
export type SearchOption = (typeof SEARCH_OPTIONS)[number];

export interface SearchSettings {
  options: SearchOption[];
  operator: 'or' | 'and';
  conversationOption: 'semantic' | 'exact_match';
  threshold: 'high' | 'medium' | 'low' | 'none';
  groupBy: 'clip' | 'video';
  pageLimit: number;
}

export const DEFAULT_SETTINGS: SearchSettings = {
  options: ['visual', 'conversation', 'text_in_video'],
  operator: 'or',
  conversationOption: 'semantic',
  threshold: 'low',
  groupBy: 'clip',
  pageLimit: 10,
};

/** The form fields of a text or image search (the image itself is added by the caller). */
export function searchFields(indexId: string, settings: SearchSettings, query: { text: string } | { image: true }): [string, string][] {
  const fields: [string, string][] = [['index_id', indexId]];
  if ('text' in query) fields.push(['query_text', query.text]);
  else fields.push(['query_media_type', 'image']);
  for (const option of settings.options) fields.push(['search_options', option]);
  if (settings.options.length > 1) fields.push(['operator', settings.operator]);
  if (settings.options.includes('conversation') && 'text' in query) fields.push(['conversation_option', settings.conversationOption]);
  fields.push(['threshold', settings.threshold], ['group_by', settings.groupBy], ['page_limit', String(settings.pageLimit)]);
  return fields;
}

/** One row of the builder: a text and the option it is searched with. */
export interface QueryPart {
  text: string;
  option: SearchOption;
}

export type Combinator = '$and' | '$or' | '$then';

export type CombinedQuery =
  { text: string; search_options: SearchOption[] } | ({ [K in Combinator]?: CombinedQuery[] } & { proximity?: number });

/**
 * The builder's rows joined by one combinator (v1.2 grammar, §5.5.1); a single row is a plain
 * leaf, and proximity only applies to two or more. Throws a sentence for the form to show.
 */
export function combinedQuery(parts: QueryPart[], combinator: Combinator, proximity: number | undefined): CombinedQuery {
  const leaves = parts.map((part) => ({ text: part.text.trim(), search_options: [part.option] })).filter((leaf) => leaf.text !== '');
  if (leaves.length === 0) throw new Error('Write at least one query text.');
  if (leaves.length === 1) return leaves[0]!;
  if (proximity !== undefined && !(proximity > 0)) throw new Error('Proximity is a number of seconds above 0.');
  return { [combinator]: leaves, ...(proximity !== undefined ? { proximity } : {}) };
}

export function combinedSearchBody(indexId: string, settings: SearchSettings, query: CombinedQuery): Record<string, unknown> {
  return {
    index_id: indexId,
    query,
    search_options: settings.options,
    threshold: settings.threshold,
    page_limit: settings.pageLimit,
  };
}

/** A search hit as the page shows it: clips, with the video they belong to. */
export interface Clip {
  videoId: string;
  start: number;
  end: number;
  score: number | undefined;
  confidence: string | undefined;
  thumbnailUrl: string | undefined;
  kinds: string[];
}

export interface ResultGroup {
  videoId: string | undefined;
  clips: Clip[];
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function clipOf(raw: Record<string, unknown>, videoId?: string): Clip {
  const metadata = Array.isArray(raw.metadata) ? (raw.metadata as Record<string, unknown>[]) : [];
  return {
    videoId: str(raw.video_id) ?? videoId ?? '',
    start: num(raw.start) ?? 0,
    end: num(raw.end) ?? num(raw.start) ?? 0,
    score: num(raw.score),
    confidence: str(raw.confidence),
    thumbnailUrl: str(raw.thumbnail_url),
    kinds: metadata.map((entry) => str(entry.type)).filter((type): type is string => type !== undefined),
  };
}

/** A page's `data`: clips (group_by=clip, one group without a video) or groups of clips per video. */
export function resultGroups(data: unknown): ResultGroup[] {
  if (!Array.isArray(data)) return [];
  const items = data.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
  const grouped = items.filter((item) => Array.isArray(item.clips));
  if (grouped.length > 0) {
    return grouped.map((group) => ({
      videoId: str(group.id),
      clips: (group.clips as Record<string, unknown>[]).map((clip) => clipOf(clip, str(group.id))),
    }));
  }
  return items.length > 0 ? [{ videoId: undefined, clips: items.map((item) => clipOf(item)) }] : [];
}

import type { SseMessage } from './sse';

/**
 * POST /v1.3/responses as the "Ask your library" panel reads it (twelvelabs-js 1.3.4 reference
 * "Responses", Open Responses events): the streamed text, then the completed response whose
 * `output_text` parts carry `video_citation` (and `image_citation`) annotations. Pure: the panel
 * holds the state.
 */

/**
 * A citation of the answer. `startIndex`/`endIndex` are JS offsets into its part's text (UTF-16,
 * end exclusive: `text.slice(startIndex, endIndex)`); a video's moment plays from `startSec` to
 * `endSec`, an image is cited whole (no times, no stream).
 */
export interface Citation {
  kind: 'video' | 'image';
  startIndex: number;
  endIndex: number;
  itemId: string;
  startSec: number;
  endSec: number;
  title: string;
  thumbnailUrl: string | undefined;
  hlsUrl: string | undefined;
}

/** One `output_text` part of the answer with its citations. */
export interface AnswerPart {
  text: string;
  citations: Citation[];
}

export type ResponseEvent =
  | { kind: 'started'; sessionId: string | undefined }
  | { kind: 'delta'; text: string }
  | { kind: 'completed'; parts: AnswerPart[]; sessionId: string | undefined; incomplete: string | undefined }
  | { kind: 'failed'; message: string }
  | { kind: 'done' }
  | { kind: 'other' };

type Json = Record<string, unknown>;
const rec = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(rec) : []);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const index = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;

/** The UTF-16 offset of code point `n` of `text` (its length for the point just past the end), or undefined beyond. */
export function utf16Offset(text: string, n: number): number | undefined {
  let offset = 0;
  for (let point = 0; point < n; point++) {
    if (offset >= text.length) return undefined;
    offset += (text.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
  }
  return offset;
}

/**
 * A `video_citation` or `image_citation` annotation of `text`, or undefined when it is another type
 * or lacks what a marker needs. The reference counts offsets in code points with the end inclusive
 * (its example's `[1]` is 211 to 213); they become JS offsets here.
 */
export function readCitation(raw: unknown, text: string): Citation | undefined {
  const a = rec(raw);
  const kind = a.type === 'video_citation' ? 'video' : a.type === 'image_citation' ? 'image' : undefined;
  const first = index(a.start_index);
  const last = index(a.end_index);
  const itemId = str(a.item_id);
  if (!kind || first === undefined || last === undefined || last < first || itemId === undefined) return undefined;
  const startIndex = utf16Offset(text, first);
  const endIndex = utf16Offset(text, last + 1);
  if (startIndex === undefined || endIndex === undefined) return undefined;
  const startSec = kind === 'video' ? num(a.start_sec) : 0;
  const endSec = kind === 'video' ? num(a.end_sec) : 0;
  if (startSec === undefined || endSec === undefined || startSec < 0 || endSec < startSec) return undefined;
  return {
    kind,
    startIndex,
    endIndex,
    itemId,
    startSec,
    endSec,
    title: str(a.title) ?? itemId,
    thumbnailUrl: str(a.thumbnail_url),
    hlsUrl: kind === 'video' ? str(a.hls_url) : undefined,
  };
}

/**
 * The answer of a response object: the `output_text` parts of its assistant messages, in order;
 * only the final answer's when messages say their phase (the others are steps towards it).
 */
export function answerParts(response: unknown): AnswerPart[] {
  const messages = list(rec(response).output).filter((item) => item.type === 'message' && (item.role ?? 'assistant') === 'assistant');
  const final = messages.filter((item) => item.phase === 'final_answer');
  return (final.length > 0 ? final : messages)
    .flatMap((item) => list(item.content))
    .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
    .map((part) => ({
      text: part.text as string,
      citations: list(part.annotations)
        .map((annotation) => readCitation(annotation, part.text as string))
        .filter((c): c is Citation => c !== undefined),
    }));
}

/** Why a failed response or an `error` event failed, in the server's words. */
function failure(event: Json): string {
  const error = rec(rec(event.response).error ?? event.error);
  return str(error.message) ?? str(event.message) ?? 'The server stopped answering with an error.';
}

/** One event of the stream; the SSE `event:` name stands in when the data names no `type`. */
export function readResponseEvent(message: SseMessage): ResponseEvent {
  if (message.data.trim() === '[DONE]') return { kind: 'done' };
  let event: Json;
  try {
    event = rec(JSON.parse(message.data));
  } catch {
    return { kind: 'failed', message: 'The server sent an event the page could not read.' };
  }
  const type = str(event.type) ?? message.event;
  const response = rec(event.response);
  switch (type) {
    case 'response.created':
    case 'response.in_progress':
      return { kind: 'started', sessionId: str(response.session_id) };
    case 'response.output_text.delta':
      return { kind: 'delta', text: typeof event.delta === 'string' ? event.delta : '' };
    case 'response.completed':
    case 'response.incomplete':
      return {
        kind: 'completed',
        parts: answerParts(response),
        sessionId: str(response.session_id),
        incomplete:
          type === 'response.incomplete' || response.status === 'incomplete'
            ? (str(rec(response.incomplete_details).reason) ?? 'incomplete')
            : undefined,
      };
    case 'response.failed':
    case 'error':
      return { kind: 'failed', message: failure(event) };
    default:
      return { kind: 'other' };
  }
}

/** A piece of a rendered answer: plain text, or the marker of a cited moment (numbered from 1). */
export type AnswerSegment = { kind: 'text'; text: string } | { kind: 'cite'; n: number; citation: Citation };

/** The same moment cited twice is one source with one number. */
const momentKey = (c: Citation) => `${c.itemId}\u0000${c.startSec}\u0000${c.endSec}`;

/** The distinct moments of a part, numbered in the order the text cites them. */
export function citedMoments(part: AnswerPart): { n: number; citation: Citation }[] {
  const numbers = new Map<string, { n: number; citation: Citation }>();
  for (const citation of [...part.citations].sort((a, b) => a.startIndex - b.startIndex || a.endIndex - b.endIndex)) {
    const key = momentKey(citation);
    if (!numbers.has(key)) numbers.set(key, { n: numbers.size + 1, citation });
  }
  return [...numbers.values()];
}

/** A cited span that is itself a marker the model wrote ("[1]", "[2, 3]"): the clickable marker takes its place. */
const isMarkerText = (text: string) => /^\s*\[[^\]\n]{1,12}\]\s*$/.test(text);

/**
 * The part's text cut into text and markers: each citation becomes a marker at the end of the span
 * it cites (replacing the span when the span is a written marker), so overlapping or repeated
 * citations each keep their marker and the text is never shown twice or lost.
 */
export function answerSegments(part: AnswerPart): AnswerSegment[] {
  const numberOf = new Map(citedMoments(part).map(({ n, citation }) => [momentKey(citation), n]));
  const segments: AnswerSegment[] = [];
  let cursor = 0;
  const text = (to: number) => {
    if (to > cursor) segments.push({ kind: 'text', text: part.text.slice(cursor, to) });
    cursor = Math.max(cursor, to);
  };
  for (const citation of [...part.citations].sort((a, b) => a.endIndex - b.endIndex || a.startIndex - b.startIndex)) {
    const replaces = citation.startIndex >= cursor && isMarkerText(part.text.slice(citation.startIndex, citation.endIndex));
    if (replaces) {
      text(citation.startIndex);
      cursor = citation.endIndex;
    } else text(citation.endIndex);
    segments.push({ kind: 'cite', n: numberOf.get(momentKey(citation)) ?? 0, citation });
  }
  text(part.text.length);
  return segments;
}

/** The request of one question: a new conversation, or the next turn of `sessionId`. */
export function responseRequest(knowledgeStoreId: string, question: string, sessionId: string | undefined): Record<string, unknown> {
  return {
    knowledge_store_id: knowledgeStoreId,
    input: [{ type: 'message', role: 'user', content: question }],
    stream: true,
    ...(sessionId ? { session_id: sessionId } : {}),
  };
}

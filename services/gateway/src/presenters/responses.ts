import type { RespondIntermediate } from '@vus/grpc/types/analyze/v1/RespondIntermediate';
import type { VideoCitation } from '@vus/grpc/types/analyze/v1/VideoCitation';

/*
 * POST /responses as twelvelabs-js 1.3.4 reads it (ResponseObject, ResponseStreamEvent; Open
 * Responses): the one response object, and the Server-Sent Events that build it. The JSON answer
 * is the response the event sequence ends with, so both forms are one piece of code.
 */

/** What analyze-service's `started` event fixes: the ids and the time of the response. */
export interface ResponseHead {
  id: string;
  sessionId: string;
  knowledgeStoreId: string;
  /** ISO 8601, whole seconds (as the reference writes it). */
  createdAt: string;
  /** The assistant message's id. */
  messageId: string;
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** A citation as the SDK reads it (ResponseAnnotation): offsets in code points, the end inclusive. */
export interface Annotation {
  type: 'video_citation' | 'image_citation';
  start_index: number;
  end_index: number;
  item_id: string;
  start_sec?: number;
  end_sec?: number;
  title: string | null;
  thumbnail_url: string | null;
  hls_url: string | null;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: Annotation[];
}

export type OutputItem =
  | { type: 'message'; id: string; status: ItemStatus; role: 'assistant'; phase: 'final_answer'; content: OutputText[] }
  | { type: 'function_call'; id: string; status: ItemStatus; name: string; call_id: string; arguments: string }
  | { type: 'function_call_output'; id: string; status: ItemStatus; call_id: string; output: string };

/** How analyze-service finished, with the citations already made annotations (their URLs need I/O). */
export interface Finished {
  text: string;
  annotations: Annotation[];
  status: 'completed' | 'incomplete';
  incompleteReason: string;
  usage: { input_tokens: number; output_tokens: number };
}

export interface ResponseEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

/** The signed URLs of a cited moment; null where none could be made (the reference's "always present"). */
export interface CitationMedia {
  thumbnail_url: string | null;
  hls_url: string | null;
}

/** A time as the reference writes it: ISO 8601 in UTC, whole seconds. */
export const isoSeconds = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

/** The code-point offset of a UTF-16 offset into `text` (a surrogate pair is one code point). */
export function codePointOffset(text: string, utf16: number): number {
  let points = 0;
  for (let i = 0; i < utf16 && i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // The second half of a pair was counted with the first.
    if (!(unit >= 0xdc00 && unit <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1)))) points++;
  }
  return points;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/**
 * analyze-service's citations (UTF-16 offsets of the marker, end exclusive: JS slice) as the SDK's
 * annotations (code points, end inclusive: `text[start_index : end_index + 1]` reads the marker).
 * A citation whose span is not inside the text is left out; an image item's citation is an
 * image_citation (a whole item: no times, no stream).
 */
export function annotationsOf(
  text: string,
  citations: readonly VideoCitation[],
  assetTypeOf: (itemId: string) => string | undefined,
  mediaOf: (citation: VideoCitation) => CitationMedia,
): Annotation[] {
  return (
    citations
      .filter((c) => Number.isInteger(c.start_index) && c.start_index >= 0 && c.end_index > c.start_index && c.end_index <= text.length)
      .sort((a, b) => a.start_index - b.start_index)
      // A marker resolves to one citation (the reference): of `[1, 2]`'s two, the first.
      .filter((c, i, sorted) => i === 0 || c.start_index !== sorted[i - 1]!.start_index)
      .map((c) => {
        const media = mediaOf(c);
        const span = {
          start_index: codePointOffset(text, c.start_index),
          end_index: codePointOffset(text, c.end_index) - 1,
          item_id: c.item_id,
        };
        const title = c.title || null;
        return assetTypeOf(c.item_id) === 'image'
          ? { type: 'image_citation', ...span, title, thumbnail_url: media.thumbnail_url, hls_url: null }
          : { type: 'video_citation', ...span, start_sec: c.start_sec, end_sec: c.end_sec, title, ...media };
      })
  );
}

const outputText = (text: string, annotations: Annotation[]): OutputText => ({ type: 'output_text', text, annotations });

const message = (head: ResponseHead, status: ItemStatus, content: OutputText[]): OutputItem => ({
  type: 'message',
  id: head.messageId,
  status,
  role: 'assistant',
  phase: 'final_answer',
  content,
});

/** An id of the response's own, `<prefix>_<the response's uuid>_<n>`. */
const ownId = (head: ResponseHead, prefix: string, n: number) => `${prefix}_${head.id.replace(/^resp_/, '')}_${n}`;

/** The query a step searched (its detail's `query`), as function-call arguments; `{}` when it names none. */
function argumentsOf(step: RespondIntermediate): string {
  try {
    const detail = JSON.parse(step.detail_json || '{}') as unknown;
    const query = detail && typeof detail === 'object' ? (detail as Record<string, unknown>).query : undefined;
    return JSON.stringify(query === undefined ? {} : { query });
  } catch {
    return '{}';
  }
}

/**
 * A step taken before the answer (include: ["intermediate_outputs"]), as the reference shows steps:
 * a function call (the step's kind, with the query it searched) and its output (what it found).
 */
export function stepItems(head: ResponseHead, step: RespondIntermediate, n: number): [OutputItem, OutputItem] {
  const callId = ownId(head, 'call', n);
  return [
    {
      type: 'function_call',
      id: ownId(head, 'fc', n),
      status: 'completed',
      name: step.kind || 'retrieval',
      call_id: callId,
      arguments: argumentsOf(step),
    },
    {
      type: 'function_call_output',
      id: ownId(head, 'fco', n),
      status: 'completed',
      call_id: callId,
      output: step.detail_json || step.summary,
    },
  ];
}

function responseObject(
  head: ResponseHead,
  status: ItemStatus,
  output: OutputItem[],
  extra: { usage?: Finished['usage']; incompleteReason?: string; error?: { code: string; message: string } } = {},
): Record<string, unknown> {
  return {
    id: head.id,
    type: 'response',
    object: 'response',
    status,
    incomplete_details: status === 'incomplete' ? { reason: extra.incompleteReason || 'unknown' } : null,
    session_id: head.sessionId,
    knowledge_store_id: head.knowledgeStoreId,
    output,
    ...(extra.usage ? { usage: extra.usage } : {}),
    ...(extra.error ? { error: extra.error } : {}),
    created_at: head.createdAt,
  };
}

/**
 * The events of one response, made as analyze-service's events arrive: `opened` first, then any
 * steps, deltas, and one of `finished` or `failed`. Sequence numbers count from 0; the assistant
 * message is added at its first text (after the steps, so output order is the order of events).
 */
export function responseEventStream(head: ResponseHead) {
  let sequence = 0;
  const output: OutputItem[] = [];
  let messageIndex = -1;
  let streamed = '';
  const event = (type: string, fields: Record<string, unknown>): ResponseEvent => ({ type, sequence_number: sequence++, ...fields });
  const snapshot = () => output.map((item) => structuredClone(item));
  const at = () => ({ item_id: head.messageId, output_index: messageIndex, content_index: 0 });

  const addItem = (item: OutputItem): ResponseEvent[] => {
    output.push(item);
    return [event('response.output_item.added', { output_index: output.length - 1, item: structuredClone(item) })];
  };
  const openMessage = (): ResponseEvent[] => {
    if (messageIndex >= 0) return [];
    const added = addItem(message(head, 'in_progress', [outputText('', [])]));
    messageIndex = output.length - 1;
    return [...added, event('response.content_part.added', { ...at(), part: outputText('', []) })];
  };

  return {
    opened(): ResponseEvent[] {
      return [
        event('response.created', { response: responseObject(head, 'in_progress', []) }),
        event('response.in_progress', { response: responseObject(head, 'in_progress', []) }),
      ];
    },

    step(step: RespondIntermediate): ResponseEvent[] {
      const index = output.length;
      const [call, result] = stepItems(head, step, index);
      const events = addItem({ ...call, status: 'in_progress' });
      output[index] = call;
      return [
        ...events,
        event('response.function_call_arguments.done', { item_id: call.id, output_index: index, arguments: argumentsOf(step) }),
        event('response.output_item.done', { output_index: index, item: structuredClone(call) }),
        ...addItem(result),
        event('response.output_item.done', { output_index: index + 1, item: structuredClone(result) }),
      ];
    },

    delta(text: string): ResponseEvent[] {
      if (!text) return [];
      streamed += text;
      return [...openMessage(), event('response.output_text.delta', { ...at(), delta: text })];
    },

    finished(done: Finished): ResponseEvent[] {
      const events = openMessage();
      // Deltas add up to the text: what analyze-service did not stream arrives as one last delta.
      if (done.text.startsWith(streamed) && done.text.length > streamed.length)
        events.push(event('response.output_text.delta', { ...at(), delta: done.text.slice(streamed.length) }));
      const part = outputText(done.text, done.annotations);
      output[messageIndex] = message(head, done.status, [part]);
      const response = responseObject(head, done.status, snapshot(), { usage: done.usage, incompleteReason: done.incompleteReason });
      return [
        ...events,
        event('response.output_text.done', { ...at(), text: done.text }),
        event('response.content_part.done', { ...at(), part: structuredClone(part) }),
        event('response.output_item.done', { output_index: messageIndex, item: structuredClone(output[messageIndex]) }),
        // The SDK's events have no response.incomplete: a cut answer ends as completed, its status incomplete.
        event('response.completed', { response }),
      ];
    },

    /** After the stream began: what was output so far, the message cut where it stopped, and the error. */
    failed(error: { code: string; message: string }): ResponseEvent[] {
      if (messageIndex >= 0) output[messageIndex] = message(head, 'incomplete', [outputText(streamed, [])]);
      return [event('response.failed', { response: responseObject(head, 'failed', snapshot(), { error }) })];
    },
  };
}

/** The whole event sequence of a response that finished (the table the tests read; the JSON answer is its last response). */
export function responseEvents(
  head: ResponseHead,
  steps: readonly RespondIntermediate[],
  deltas: readonly string[],
  done: Finished,
): ResponseEvent[] {
  const stream = responseEventStream(head);
  return [...stream.opened(), ...steps.flatMap((s) => stream.step(s)), ...deltas.flatMap((d) => stream.delta(d)), ...stream.finished(done)];
}

/** The JSON answer (stream: false): the response the events end with. */
export function presentResponse(head: ResponseHead, steps: readonly RespondIntermediate[], done: Finished): Record<string, unknown> {
  const events = responseEvents(head, steps, [], done);
  return events[events.length - 1]!.response as Record<string, unknown>;
}

/** One Server-Sent Event as the reference writes it. */
export const sseFrame = (event: ResponseEvent): string => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** The stream's last message. */
export const SSE_DONE = 'data: [DONE]\n\n';

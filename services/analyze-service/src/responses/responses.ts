/**
 * Responses over a knowledge store (issue 33): the latest question is searched over the items in
 * scope, the moments found (or, for a broad question that finds little, each item's overview) and
 * their evidence become numbered passages, the provider answers citing them as `[n]`, and the turn
 * is kept in its session so that a follow-up sees it. A cancelled turn keeps nothing.
 */
import { errors, type Clock, type Logger } from '@vus/core';
import { countTokens, TokenTally, truncateToTokens, QUERY_TEXT_LIMITS } from '@vus/domain';
import type { MeteredUsage } from '@vus/events';
import { randomUUID } from 'node:crypto';
import { untilAborted } from '../analyze';
import type { Timeline } from '../evidence';
import type { GenerationProvider } from '../provider';
import type { ResponseSchema } from '../response-format';
import {
  boundHistory,
  checkInput,
  checkScope,
  classifyRequest,
  HISTORY_LIMITS,
  readSelections,
  refersBack,
  retrievalQuery,
  splitConversation,
  type Message,
  type Selection,
  type Turn,
} from './conversation';
import { citationsOf, groundedMessages, NO_MOMENT, type Citation, type Grounding, type Passage } from './grounding';
import { FEW_MOMENTS, itemsInScope, MAX_MOMENTS, mergeMoments, overviewOf, passageOf, type Moment, type ScopeItem } from './retrieval';

/** The search engine and the evidence of the store's videos, as the domain needs them (library.ts calls the services). */
export interface Library {
  /** The moments of `videoIds` in the index that bear on `query`, best first (at most `limit`). */
  search(
    orgId: string,
    query: { indexId: string; text: string; videoIds: readonly string[]; limit: number },
    signal: AbortSignal,
  ): Promise<Moment[]>;
  timeline(orgId: string, indexId: string, videoId: string, signal: AbortSignal): Promise<Timeline>;
}

/** A kept turn: what was asked (this request's input) and answered. */
export interface TurnRecord {
  id: string;
  orgId: string;
  sessionId: string;
  knowledgeStoreId: string;
  /** 0-based position in the session. */
  turn: number;
  provider: string;
  input: Message[];
  output: string;
  citations: Citation[];
  status: 'completed' | 'incomplete';
  incompleteReason: string;
  inputTokens: number;
  outputTokens: number;
  createdAt: Date;
}

export interface SessionStore {
  /**
   * The organization's session over that knowledge store: its turn count and last `limit` turns
   * (oldest first); `other_store` when the organization's session is over another store; undefined when none.
   */
  open(
    orgId: string,
    sessionId: string,
    knowledgeStoreId: string,
    limit: number,
  ): Promise<{ turns: number; recent: TurnRecord[] } | 'other_store' | undefined>;
  /** The turn (creating its session at its first), with its usage events, in one transaction. */
  saveTurn(turn: TurnRecord, usage: readonly MeteredUsage[]): Promise<void>;
}

export interface RespondRequest {
  knowledgeStoreId: string;
  indexId: string;
  items: ScopeItem[];
  input: { role: string; content: string }[];
  sessionId: string;
  instructions: string;
  includeIntermediate: boolean;
  selections: Selection[];
}

export type ResponseEvent =
  | { type: 'started'; responseId: string; sessionId: string; createdAt: Date; messageId: string }
  | { type: 'intermediate'; kind: 'retrieval'; summary: string; detail: unknown }
  | { type: 'text'; delta: string }
  | {
      type: 'completed';
      text: string;
      citations: Citation[];
      inputTokens: number;
      outputTokens: number;
      status: 'completed' | 'incomplete';
      incompleteReason: string;
    };

/** Generation settings, checked by the caller (analyze.ts checkOptions). */
export interface ResponseOptions {
  maxTokens: number;
  temperature: number | undefined;
  schema: ResponseSchema | undefined;
}

export interface ResponsesDeps {
  store: SessionStore;
  library: Library;
  provider: GenerationProvider;
  clock: Clock;
  logger: Logger;
}

/** Retrieval's query, within what search-service takes. */
function searchText(query: string): string {
  return truncateToTokens(query, QUERY_TEXT_LIMITS.tokens - 50).text.slice(0, QUERY_TEXT_LIMITS.characters - 100);
}

/** What is usage for billing: the output tokens, in the Analyze category. */
export function responseUsage(turn: Pick<TurnRecord, 'id' | 'outputTokens' | 'createdAt'>): MeteredUsage[] {
  if (turn.outputTokens <= 0) return [];
  return [
    {
      kind: 'output_tokens',
      quantity: turn.outputTokens,
      idempotencyKey: `response:${turn.id}`,
      occurredAt: turn.createdAt,
      category: 'analyze',
    },
  ];
}

/** The turns a stored turn stands for in a prompt: its user messages, then its answer. */
function turnsOf(record: TurnRecord): Turn[] {
  return [
    ...record.input.filter((m): m is Message & Turn => m.role === 'user' || m.role === 'assistant'),
    { role: 'assistant', content: record.output },
  ];
}

/** A specific question; a broad one read from each item's overview; a broad follow-up to a specific question. */
type Broad = 'no' | 'overview' | 'leaning';

export function broadness(question: string, previous: string | undefined): Broad {
  if (!classifyRequest(question).broad) return 'no';
  return previous && refersBack(question) && !classifyRequest(previous).broad ? 'leaning' : 'overview';
}

export function createResponses(deps: ResponsesDeps) {
  /**
   * The passages of the question: search's moments; for a broad question, each item's overview
   * first, or (a follow-up leaning on a specific question) the overviews when search finds few.
   */
  async function retrieve(orgId: string, request: RespondRequest, query: string, broad: Broad, signal: AbortSignal) {
    const scope = itemsInScope(request.items, request.selections);
    const byVideo = new Map(scope.map((item) => [item.videoId, item]));
    const videoIds = [...byVideo.keys()];
    const found =
      videoIds.length === 0
        ? []
        : await deps.library.search(orgId, { indexId: request.indexId, text: searchText(query), videoIds, limit: MAX_MOMENTS }, signal);
    const moments = mergeMoments(found, new Set(videoIds));
    const timelines = new Map<string, Promise<Timeline>>();
    const timelineOf = (videoId: string) => {
      const loading = timelines.get(videoId) ?? deps.library.timeline(orgId, request.indexId, videoId, signal);
      timelines.set(videoId, loading);
      return loading;
    };
    if (broad === 'overview') {
      // Each item's most salient stretch first (what a summary stands on), then search's moments.
      const overviews = await Promise.all(
        scope.slice(0, MAX_MOMENTS).map(async (item, i) => overviewOf(i + 1, item, await timelineOf(item.videoId))),
      );
      const rest = await Promise.all(
        moments
          .slice(0, MAX_MOMENTS - overviews.length)
          .map(async (m, i) => passageOf(overviews.length + i + 1, byVideo.get(m.videoId)!, m, await timelineOf(m.videoId))),
      );
      return { scope, moments, passages: [...overviews, ...rest] };
    }
    const passages: Passage[] = await Promise.all(
      moments.map(async (m, i) => passageOf(i + 1, byVideo.get(m.videoId)!, m, await timelineOf(m.videoId))),
    );
    if (broad === 'leaning' && moments.length < FEW_MOMENTS) {
      const cited = new Set(moments.map((m) => m.videoId));
      const rest = scope.filter((item) => !cited.has(item.videoId)).slice(0, MAX_MOMENTS - passages.length);
      const overviews = await Promise.all(
        rest.map(async (item, i) => overviewOf(passages.length + i + 1, item, await timelineOf(item.videoId))),
      );
      passages.push(...overviews);
    }
    return { scope, moments, passages };
  }

  /** The answer's pieces, or the filled schema as one JSON text. */
  async function* pieces(grounding: Grounding, options: ResponseOptions, settings: object): AsyncIterable<string> {
    if (options.schema) {
      const value = await deps.provider.fillSchemaOver(grounding, options.schema.schema, settings);
      options.schema.check(value);
      yield JSON.stringify(value);
    } else if (grounding.passages.length === 0) {
      yield NO_MOMENT;
    } else {
      yield* deps.provider.respond(grounding, settings);
    }
  }

  return {
    /**
     * One turn as events: started, the retrieval (when asked), the answer's text as it is produced
     * (cut at max_output_tokens: incomplete), completed once the turn is kept. Aborting `signal`
     * stops retrieval or generation, and nothing is kept.
     */
    async *respond(orgId: string, request: RespondRequest, options: ResponseOptions, signal: AbortSignal): AsyncIterable<ResponseEvent> {
      checkScope(request.items, request.selections);
      const asked = checkInput(request.input, request.instructions);
      readSelections(asked[asked.length - 1]!.content, request.selections);
      // Kept and shown as read: a later turn may come with other selections.
      const messages = asked.map((m) => ({ ...m, content: readSelections(m.content, request.selections, false) }));
      const conversation = splitConversation(messages, request.instructions);
      const { question } = conversation;
      const session = request.sessionId
        ? await deps.store.open(orgId, request.sessionId, request.knowledgeStoreId, HISTORY_LIMITS.turns)
        : { turns: 0, recent: [] };
      if (!session) throw errors.notFound('Session', request.sessionId);
      // twelvelabs-js 1.3.4 (ResponsesCreateRequest.sessionId): knowledge_store_id must be the session's store, else 400.
      if (session === 'other_store') {
        throw errors.invalid('session_id', 'The session belongs to another knowledge store; send that store’s knowledge_store_id.');
      }
      const sessionId = request.sessionId || `sess_${randomUUID()}`;
      const history = boundHistory([...session.recent.flatMap(turnsOf), ...conversation.earlier]);
      const responseId = `resp_${randomUUID()}`;
      const createdAt = deps.clock.now();
      yield { type: 'started', responseId, sessionId, createdAt, messageId: `msg_${sessionId}_${session.turns}` };

      const previous = [...history].reverse().find((t) => t.role === 'user')?.content;
      const query = retrievalQuery(question, previous);
      const { scope, moments, passages } = await retrieve(orgId, request, query, broadness(question, previous), signal);
      if (signal.aborted) return;
      if (request.includeIntermediate) {
        yield {
          type: 'intermediate',
          kind: 'retrieval',
          summary: `Searched ${scope.length} item(s) for "${query}": ${moments.length} moment(s) found, ${passages.length} read.`,
          detail: {
            query,
            moments: passages.map((p) => ({ n: p.n, item_id: p.itemId, title: p.title, start: p.start, end: p.end })),
          },
        };
      }

      const grounding: Grounding = { instructions: conversation.instructions, history, question, passages };
      const inputTokens = countTokens(
        groundedMessages(grounding)
          .map((m) => m.content)
          .join('\n'),
      );
      let reported: number | undefined;
      const settings = { temperature: options.temperature, maxTokens: options.maxTokens, signal, usage: (n: number) => (reported = n) };
      const written = new TokenTally();
      let text = '';
      let cut = false;
      for await (const piece of untilAborted(pieces(grounding, options, settings), signal)) {
        const taken = written.take(piece, options.maxTokens);
        if (taken.text.length > 0) {
          text += taken.text;
          yield { type: 'text', delta: taken.text };
        }
        if (taken.truncated) {
          cut = true;
          break;
        }
      }
      if (signal.aborted) return;
      const turn: TurnRecord = {
        id: responseId,
        orgId,
        sessionId,
        knowledgeStoreId: request.knowledgeStoreId,
        turn: session.turns,
        provider: deps.provider.name,
        input: messages,
        output: text,
        citations: citationsOf(text, passages),
        status: cut ? 'incomplete' : 'completed',
        incompleteReason: cut ? 'max_output_tokens' : '',
        inputTokens,
        // A model server's own count of a whole answer; this server's when it cut the answer.
        outputTokens: (cut ? undefined : reported) ?? written.total,
        createdAt,
      };
      await deps.store.saveTurn(turn, responseUsage(turn));
      deps.logger.info(
        { responseId, sessionId, provider: turn.provider, outputTokens: turn.outputTokens, status: turn.status },
        'response recorded',
      );
      yield {
        type: 'completed',
        text,
        citations: turn.citations,
        inputTokens,
        outputTokens: turn.outputTokens,
        status: turn.status,
        incompleteReason: turn.incompleteReason,
      };
    },
  };
}

export type Responses = ReturnType<typeof createResponses>;

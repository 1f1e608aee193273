import { ApiError, isApiError } from '@vus/core';
import { fromTimestamp, type OutgoingContext } from '@vus/grpc';
import type { RespondCompleted } from '@vus/grpc/types/analyze/v1/RespondCompleted';
import type { RespondEvent } from '@vus/grpc/types/analyze/v1/RespondEvent';
import type { RespondIntermediate } from '@vus/grpc/types/analyze/v1/RespondIntermediate';
import type { RespondRequest__Input } from '@vus/grpc/types/analyze/v1/RespondRequest';
import type { RespondStarted } from '@vus/grpc/types/analyze/v1/RespondStarted';
import type { VideoCitation } from '@vus/grpc/types/analyze/v1/VideoCitation';
import type { Request, Response } from 'express';
import type { IndexClient } from '../clients';
import type { Endpoint } from '../endpoints/endpoint';
import { clientGone, locals, outgoing } from '../http/context';
import { streamUrls, thumbnailUrls } from '../http/media-urls';
import {
  annotationsOf,
  isoSeconds,
  presentResponse,
  responseEventStream,
  sseFrame,
  SSE_DONE,
  type CitationMedia,
  type Finished,
  type ResponseEvent,
  type ResponseHead,
} from '../presenters/responses';
import { configured, type RouteDeps } from './deps';
import * as docs from './responses.docs';
import { parseResponsesRequest, type ResponsesRequest } from './responses.schema';
import { resolveScope, type ResponseScope } from './responses.scope';

/**
 * Cited videos (and moments) whose URLs one answer looks up; citations past them show null URLs.
 * The videos are one ListVideos page, so at most LIST_PAGE_BOUNDS.maxLimit (50).
 */
const MAX_CITED_LOOKUPS = 32;

const endedEarly = () => new ApiError('internal_error', 'The response ended before it was complete.');

function headOf(started: RespondStarted, knowledgeStoreId: string): ResponseHead {
  return {
    id: started.response_id,
    sessionId: started.session_id,
    knowledgeStoreId,
    createdAt: isoSeconds(fromTimestamp(started.created_at) ?? new Date()),
    messageId: started.message_id,
  };
}

function respondRequest(request: ResponsesRequest, scope: ResponseScope): RespondRequest__Input {
  return {
    knowledge_store_id: request.knowledgeStoreId,
    index_id: scope.indexId,
    items: scope.items,
    input: request.input,
    session_id: request.sessionId,
    instructions: request.instructions,
    text_format: request.textFormat,
    include_intermediate: request.includeIntermediate,
    max_output_tokens: request.maxOutputTokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    selections: scope.selections,
  };
}

/** One request's answer in the making: where it writes, what it reads from, and what it was asked to show. */
interface Turn {
  req: Request;
  res: Response;
  ctx: OutgoingContext;
  scope: ResponseScope;
  head: ResponseHead;
  /** include: ["intermediate_outputs"]: the steps are shown (the reference: only when asked, streamed or not). */
  withSteps: boolean;
}

/** What a failed stream says: an ApiError's own words, never an internal detail. */
const failureOf = (error: unknown) =>
  isApiError(error) && error.code !== 'internal_error'
    ? { code: error.code, message: error.message }
    : { code: 'internal_error', message: 'The response failed.' };

/**
 * POST /responses (v1.3, twelvelabs-js 1.3.4 `responses.create` / `createStream`): a question over a
 * knowledge store answered with citations of its moments. task-service says which items are ready
 * (and what the selections stand for), analyze-service retrieves and answers (sessions are its),
 * and this shapes the answer: one JSON response object, or Server-Sent Events ending with
 * `data: [DONE]`. Nothing is written until analyze-service has accepted the request (its first
 * event), so a refusal is a plain error; a client that goes away cancels the work.
 */
export function responseEndpoints({ clients, timeoutMs, thumbnails }: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'thumbnails'>): Endpoint[] {
  const task = () => configured(clients.task, 'knowledgeStores');
  const analyze = () => configured(clients.analyze, 'generate');

  /** The signed thumbnail and stream URLs of each cited moment (null where the video has none). */
  async function citationMedia(
    req: Request,
    res: Response,
    ctx: OutgoingContext,
    indexId: string,
    citations: readonly VideoCitation[],
  ): Promise<(citation: VideoCitation) => CitationMedia> {
    const index: IndexClient = clients.index;
    const videoIds = [...new Set(citations.map((c) => c.video_id).filter(Boolean))].slice(0, MAX_CITED_LOOKUPS);
    const moments = [...new Map(citations.map((c) => [`${c.video_id}@${c.start_sec}`, c])).values()].slice(0, MAX_CITED_LOOKUPS);
    const stream = streamUrls(req, { ...thumbnails, signer: thumbnails.signer.hls });
    const signThumbnail = thumbnailUrls(req, res, thumbnails);
    // The cited videos in one call (an empty id filter would list the whole index); none on a failure.
    const citedVideos = async () => {
      if (videoIds.length === 0) return [];
      const page = { page: 1, page_limit: videoIds.length };
      const listed = await index.listVideos(ctx, { index_id: indexId, filter: { ids: videoIds }, page }).catch(() => undefined);
      return listed?.data ?? [];
    };
    const [videos, stills] = await Promise.all([
      citedVideos(),
      Promise.all(
        moments.map(async ({ video_id: videoId, start_sec: time }) => {
          // The thumbnail nearest the moment's start; an index without thumbnails has none.
          const chosen = await index
            .getVideoThumbnail(ctx, { index_id: indexId, video_id: videoId, time, include_data: false })
            .catch(() => undefined);
          return [`${videoId}@${time}`, chosen ? signThumbnail({ indexId, videoId, time: chosen.time }) : null] as const;
        }),
      ),
    ]);
    const hlsOf = new Map(
      videos.map((video) => {
        const key = video.hls?.video_url;
        return [video.id, (key && stream(video.system_metadata?.duration ?? 0)(key)) || null] as const;
      }),
    );
    const stillOf = new Map(stills);
    return (c) => ({ thumbnail_url: stillOf.get(`${c.video_id}@${c.start_sec}`) ?? null, hls_url: hlsOf.get(c.video_id) ?? null });
  }

  async function finish({ req, res, ctx, scope }: Turn, done: RespondCompleted): Promise<Finished> {
    const mediaOf = await citationMedia(req, res, ctx, scope.indexId, done.citations);
    const assetTypes = new Map(scope.items.map((item) => [item.item_id, item.asset_type]));
    return {
      text: done.text,
      annotations: annotationsOf(done.text, done.citations, (id) => assetTypes.get(id), mediaOf),
      status: done.status === 'incomplete' ? 'incomplete' : 'completed',
      incompleteReason: done.incomplete_reason,
      usage: { input_tokens: done.input_tokens, output_tokens: done.output_tokens },
    };
  }

  const create = async (req: Request, res: Response) => {
    // A server without the services says so whatever the body (501 before 400).
    const [taskClient, analyzeClient] = [task(), analyze()];
    const request = parseResponsesRequest(req.body);
    const ctx = outgoing(res, timeoutMs);
    const scope = await resolveScope(taskClient, ctx, request.knowledgeStoreId, request.selections);
    const gone = clientGone(res);
    const events = analyzeClient.respond(ctx, respondRequest(request, scope), gone)[Symbol.asyncIterator]();
    try {
      // The first event (started) or the refusal: until then nothing is written.
      const first = await events.next();
      if (first.done || !first.value.started) throw endedEarly();
      const turn: Turn = {
        req,
        res,
        ctx,
        scope,
        head: headOf(first.value.started, request.knowledgeStoreId),
        withSteps: request.includeIntermediate,
      };
      if (request.stream) await streamResponse(turn, events, gone);
      else res.json(await wholeResponse(turn, events));
    } finally {
      await events.return?.();
    }
  };

  /** stream: false — every event read, then the one response object. */
  async function wholeResponse(turn: Turn, events: AsyncIterator<RespondEvent>): Promise<Record<string, unknown>> {
    const steps: RespondIntermediate[] = [];
    for (let next = await events.next(); !next.done; next = await events.next()) {
      if (next.value.intermediate && turn.withSteps) steps.push(next.value.intermediate);
      if (next.value.completed) return presentResponse(turn.head, steps, await finish(turn, next.value.completed));
    }
    throw endedEarly();
  }

  /** stream: true — each event written as it comes; a failure after the start is response.failed, then [DONE]. */
  async function streamResponse(turn: Turn, events: AsyncIterator<RespondEvent>, gone: AbortSignal): Promise<void> {
    const { res, head } = turn;
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    const stream = responseEventStream(head);
    const write = (out: ResponseEvent[]) => out.forEach((event) => res.write(sseFrame(event)));
    write(stream.opened());
    try {
      let finished = false;
      for (let next = await events.next(); !next.done && !gone.aborted; next = await events.next()) {
        const event = next.value;
        if (event.intermediate && turn.withSteps) write(stream.step(event.intermediate));
        if (event.text_delta) write(stream.delta(event.text_delta.delta));
        if (event.completed) {
          write(stream.finished(await finish(turn, event.completed)));
          finished = true;
        }
      }
      if (!finished && !gone.aborted) throw endedEarly();
    } catch (error) {
      if (!gone.aborted) {
        locals(res).logger.warn({ err: error, responseId: head.id }, 'response failed mid-stream');
        write(stream.failed(failureOf(error)));
      }
    }
    if (!gone.aborted) res.end(SSE_DONE);
  }

  return [
    {
      method: 'post',
      path: '/responses',
      rate: 'analyze',
      // v1.3 only, with the knowledge stores it answers over.
      availability: 'POST /knowledge-stores',
      doc: docs.createResponse,
      handle: create,
    },
  ];
}

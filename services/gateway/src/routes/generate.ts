import { ApiError } from '@vus/core';
import type { AnalyzeStreamEvent } from '@vus/grpc/types/analyze/v1/AnalyzeStreamEvent';
import type { Request, Response } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { locals, outgoing } from '../http/context';
import { presentGeneration, presentGist, presentSummary, streamErrorLine, streamLine } from '../presenters/generate';
import { parseGist, parseOpenPrompt, parseSummarize, type GenerationRequest } from './generate.schema';
import { configured, type RouteDeps } from './deps';
import * as docs from './generate.docs';
import { versionOf } from './version';

/** The message a stream_error carries: an ApiError's own, never an internal detail. */
const streamErrorMessage = (error: unknown) =>
  error instanceof ApiError && error.code !== 'internal_error' ? error.message : 'The generation failed.';

/**
 * Text generation (API-CONTRACT §5.7): /gist, /summarize, /generate (v1.2; deprecated in v1.3) and
 * /analyze (v1.3). A streamed answer is NDJSON written event by event; its HTTP status is sent only
 * once analyze-service has accepted the request (stream_start), so a refusal is a plain error
 * response. A client that goes away cancels the generation; what it produced is still metered
 * (analyze-service reports every generation's output tokens and video minutes as usage events).
 */
export function generateEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const client = () => configured(clients.analyze, 'generate');

  const gist = async (req: Request, res: Response) => {
    const request = parseGist(req.body as Record<string, unknown>);
    const result = await client().generateGist(outgoing(res, timeoutMs), request);
    res.json(presentGist(versionOf(res), result, request.types));
  };

  const summarize = async (req: Request, res: Response) => {
    const request = parseSummarize(versionOf(res), req.body as Record<string, unknown>);
    const result = await client().summarizeVideo(outgoing(res, timeoutMs), request);
    res.json(presentSummary(versionOf(res), result));
  };

  const openPrompt = (streamsByDefault: (req: Request, res: Response) => boolean) => async (req: Request, res: Response) => {
    const version = versionOf(res);
    const { request, stream } = parseOpenPrompt(version, req.body as Record<string, unknown>, streamsByDefault(req, res));
    if (stream) return streamGeneration(res, request);
    const result = await client().analyzeVideo(outgoing(res, timeoutMs), request);
    res.json(presentGeneration(version, result));
  };

  async function streamGeneration(res: Response, request: GenerationRequest): Promise<void> {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const events = client().analyzeVideoStream(outgoing(res, timeoutMs), request, abort.signal)[Symbol.asyncIterator]();
    // The first event (stream_start) or the refusal: until then nothing is written.
    const first = await events.next();
    let generationId = '';
    res.status(200).set('Content-Type', 'application/x-ndjson');
    const write = (event: AnalyzeStreamEvent) => {
      generationId = event.generation_id || generationId;
      const line = streamLine(event);
      if (line) res.write(`${JSON.stringify(line)}\n`);
    };
    try {
      if (!first.done) write(first.value);
      for (let next = await events.next(); !next.done && !abort.signal.aborted; next = await events.next()) write(next.value);
    } catch (error) {
      if (!abort.signal.aborted) {
        locals(res).logger.warn({ err: error, generationId }, 'generation failed mid-stream');
        res.write(`${JSON.stringify(streamErrorLine(streamErrorMessage(error)))}\n`);
      }
    } finally {
      await events.return?.();
      if (!abort.signal.aborted) res.end();
    }
  }

  // Versions before v1.2 have no text generation, v1.2 no /analyze: their adapters say how to refuse.
  const generation = { method: 'post', rate: 'analyze' } as const;
  return [
    { ...generation, path: '/gist', availability: 'POST /gist', doc: docs.gist, handle: gist },
    { ...generation, path: '/summarize', availability: 'POST /summarize', doc: docs.summarize, handle: summarize },
    {
      ...generation,
      path: '/generate',
      availability: 'POST /generate',
      doc: docs.generate,
      handle: openPrompt((_req, res) => versionOf(res).generate.generateStreamsByDefault),
    },
    { ...generation, path: '/analyze', availability: 'POST /analyze', doc: docs.analyze, handle: openPrompt(() => true) },
  ];
}

import { z } from 'zod';
import { ok, type OperationDoc } from '../openapi/operation';
import { id, type VersionShapes } from '../openapi/shapes';

/**
 * The OpenAPI operations of routes/generate.ts (Text generation): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

const generationRequest = z.object({
  video_id: id,
  prompt: z.string().optional(),
  temperature: z.number().min(0).max(1).optional(),
});
const usage = z.object({ output_tokens: z.int() });
const streamEvent = z.object({
  event_type: z.enum(['stream_start', 'text_generation', 'stream_end', 'stream_error']),
  text: z.string().optional(),
  finish_reason: z.string().optional(),
  metadata: z.object({ generation_id: z.string(), usage: usage.optional() }).optional(),
  error: z.object({ message: z.string() }).optional(),
});
const openPrompt =
  (stream: string): OperationDoc =>
  ({ version }) => ({
    summary: 'Answer a prompt about a video',
    description: `Streams NDJSON events unless stream is false (default: ${stream}).`,
    tag: 'Generate',
    body: { json: generationRequest.extend({ prompt: z.string(), stream: z.boolean().optional() }), required: true },
    responses: {
      200: {
        description: 'The text, or the stream of events.',
        json: z.object({ id: z.string(), data: z.string(), ...(version.generate.usage ? { finish_reason: z.string(), usage } : {}) }),
        ndjson: streamEvent,
      },
    },
  });

/** POST /gist */
export const gist: OperationDoc = ({ version }) => ({
  summary: 'Title, topics and hashtags of a video',
  tag: 'Generate',
  body: { json: z.object({ video_id: id, types: z.array(z.enum(['title', 'topic', 'hashtag'])) }), required: true },
  responses: ok(
    z.object({
      id: z.string(),
      title: z.string().optional(),
      topics: z.array(z.string()).optional(),
      hashtags: z.array(z.string()).optional(),
      ...(version.generate.usage ? { usage } : {}),
    }),
  ),
});

/** POST /summarize */
export const summarize: OperationDoc = ({ version }) => ({
  summary: 'Summary, chapters or highlights of a video',
  tag: 'Generate',
  body: { json: generationRequest.extend({ type: z.enum(['summary', 'chapter', 'highlight']) }), required: true },
  responses: ok(
    z.object({
      id: z.string(),
      ...(version.generate.summarizeType ? { summarize_type: z.enum(['summary', 'chapter', 'highlight']) } : {}),
      summary: z.string().optional(),
      chapters: z
        .array(
          z.object({
            chapter_number: z.int(),
            start: z.number(),
            end: z.number(),
            chapter_title: z.string(),
            chapter_summary: z.string(),
          }),
        )
        .optional(),
      highlights: z
        .array(z.object({ start: z.number(), end: z.number(), highlight: z.string(), highlight_summary: z.string() }))
        .optional(),
      ...(version.generate.usage ? { usage } : {}),
    }),
  ),
});

/** POST /generate */
export const generate: OperationDoc = ({ version }) =>
  openPrompt(String(version.generate.generateStreamsByDefault))({ version } as VersionShapes);

/** POST /analyze */
export const analyze: OperationDoc = openPrompt('true');

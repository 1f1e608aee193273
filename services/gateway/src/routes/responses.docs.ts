import { z } from 'zod';
import type { OperationDoc } from '../openapi/operation';
import { messageItemSchema, responsesRequestSchema } from './responses.schema';

/**
 * The OpenAPI operation of routes/responses.ts (POST /responses), with the response object and
 * its stream events as twelvelabs-js 1.3.4 reads them (presenters/responses.ts writes them).
 */

/** The request as sent: `input` and a message's `content` are a string or a list (the schema turns a string into a list). */
const request = responsesRequestSchema.extend({
  input: z.union([
    z.string(),
    z.array(
      messageItemSchema.extend({
        content: z.union([z.string(), z.array(z.object({ type: z.literal('input_text'), text: z.string() }))]),
      }),
    ),
  ]),
});

const status = z.enum(['in_progress', 'completed', 'incomplete', 'failed']);

const annotation = z.object({
  type: z.enum(['video_citation', 'image_citation']),
  start_index: z.int().describe('The marker’s first character in `text`, counted in Unicode code points.'),
  end_index: z.int().describe('Its last character, inclusive: `text[start_index : end_index + 1]` is the marker.'),
  item_id: z.string(),
  start_sec: z.number().optional().describe('video_citation only.'),
  end_sec: z.number().optional(),
  title: z.string().nullable(),
  thumbnail_url: z.string().nullable().describe('Signed, expires.'),
  hls_url: z.string().nullable().describe('Signed, expires; null on an image_citation.'),
});

const outputText = z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(annotation) });

const outputItem = z.object({
  type: z.enum(['message', 'function_call', 'function_call_output']),
  id: z.string(),
  status,
  role: z.literal('assistant').optional(),
  phase: z.literal('final_answer').optional(),
  content: z.array(outputText).optional(),
  name: z.string().optional().describe('function_call: the step taken (retrieval).'),
  call_id: z.string().optional(),
  arguments: z.string().optional().describe('function_call: JSON text, the query searched.'),
  output: z.string().optional().describe('function_call_output: JSON text, what the step found.'),
});

const responseObject = z.object({
  id: z.string(),
  type: z.literal('response'),
  object: z.literal('response'),
  status,
  incomplete_details: z.object({ reason: z.string() }).nullable(),
  session_id: z.string().describe('Pass it back as session_id to ask a follow-up in the same conversation.'),
  knowledge_store_id: z.string(),
  output: z.array(outputItem),
  usage: z.object({ input_tokens: z.int(), output_tokens: z.int() }).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional().describe('response.failed only.'),
  created_at: z.string(),
});

const streamEvent = z.object({
  type: z.enum([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.function_call_arguments.done',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
    'response.failed',
  ]),
  sequence_number: z.int().describe('0, 1, 2, … in the order sent.'),
  response: responseObject.optional(),
  output_index: z.int().optional(),
  item: outputItem.optional(),
  item_id: z.string().optional(),
  content_index: z.int().optional(),
  part: outputText.optional(),
  delta: z.string().optional(),
  text: z.string().optional(),
  arguments: z.string().optional(),
});

/** POST /responses */
export const createResponse: OperationDoc = () => ({
  summary: 'Ask a question over a knowledge store',
  description: [
    'Retrieves the moments of the store’s ready items that bear on the question (or of the selected items: `{{sel:N}}` in a message',
    'names `selections[N]`) and answers with citations of them. With the bundled provider the answer is extractive: each sentence',
    'is taken from a cited moment. `session_id` continues a conversation. `stream: true` answers with Server-Sent Events',
    '(response.created … response.completed, or response.failed after a failure), then `data: [DONE]`; a cut answer',
    '(max_output_tokens) ends with response.completed whose status is incomplete. A store with no ready item is a 400.',
  ].join(' '),
  tag: 'Responses',
  body: { json: request, required: true },
  responses: {
    200: { description: 'The response, or the stream of its events.', json: responseObject, sse: streamEvent },
  },
});

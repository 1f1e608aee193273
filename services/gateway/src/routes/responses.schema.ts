import { errors, knownId, parseInput } from '@vus/core';
import { checkPromptText } from '@vus/domain';
import type { ResponseFormat__Input } from '@vus/grpc/types/analyze/v1/ResponseFormat';
import type { ResponseMessage } from '@vus/grpc/types/analyze/v1/ResponseMessage';
import { z } from 'zod';
import { jsonSchemaFormat } from './generate.schema';

/**
 * The request of POST /responses (twelvelabs-js 1.3.4 ResponsesCreateRequest, Open Responses input
 * items). Unknown fields are ignored, as on the other v1.3 routes (API-CONTRACT §2.5: the SDKs send
 * extras), and null is the same as absent (twelvelabs-js sends a field left undefined as null);
 * every size is bounded here, before anything is resolved or generated.
 */

export const RESPONSE_LIMITS = {
  /** Input items of one request (a conversation given whole, without a session). */
  inputItems: 32,
  /** Characters of one message (the reference: 1 to 10,000). */
  messageCharacters: 10_000,
  /** Characters of all the input together. */
  inputCharacters: 40_000,
  /** Content parts of one message. */
  contentParts: 32,
  selections: 20,
  /** A schema's name (as OpenAI-compatible servers take it). */
  formatName: 64,
  formatDescription: 2000,
} as const;

export const ROLES = ['user', 'assistant', 'system', 'developer'] as const;
export const SELECTION_KINDS = ['item', 'collection'] as const;
export const INCLUDE_VALUES = ['intermediate_outputs'] as const;

const text = (what: string) => z.string({ error: `expected ${what}` });

const contentPart = z.object({
  type: z.literal('input_text', { error: 'expected a content part of type input_text' }),
  text: text('a string').max(RESPONSE_LIMITS.messageCharacters, `at most ${RESPONSE_LIMITS.messageCharacters} characters`),
});

const parts = z.array(contentPart).min(1, 'expected at least one content part').max(RESPONSE_LIMITS.contentParts, 'too many content parts');

/** An input item; its content a string or input_text parts (each refusal names its own path). */
export const messageItemSchema = z.object({
  type: z.literal('message', { error: 'expected an input item of type message' }).nullish(),
  role: z.enum(ROLES, { error: `expected one of ${ROLES.join(', ')}` }),
  content: z.preprocess((v) => (typeof v === 'string' ? [{ type: 'input_text', text: v }] : v), parts),
});

/** `input`: a string (one user message) or the input items. */
export const inputSchema = z.preprocess(
  (v) => (typeof v === 'string' ? [{ role: 'user', content: v }] : v),
  z
    .array(messageItemSchema, { error: 'expected a string or an array of message items' })
    .min(1, 'expected at least one input item')
    .max(RESPONSE_LIMITS.inputItems, 'too many input items'),
);

const jsonSchemaFormatShape = z.object({
  type: z.literal('json_schema'),
  name: text('a string')
    .min(1, 'expected a name')
    .max(RESPONSE_LIMITS.formatName, `at most ${RESPONSE_LIMITS.formatName} characters`)
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only'),
  description: text('a string').max(RESPONSE_LIMITS.formatDescription, `at most ${RESPONSE_LIMITS.formatDescription} characters`).nullish(),
  schema: z.record(z.string(), z.unknown(), { error: 'expected a JSON schema object' }),
  strict: z.boolean({ error: 'expected a boolean' }).nullish(),
});

export const responsesRequestSchema = z.object({
  knowledge_store_id: text('a knowledge store id'),
  input: inputSchema,
  session_id: text('a session id').min(1).max(128, 'at most 128 characters').nullish(),
  instructions: text('a string').nullish(),
  include: z
    .array(z.enum(INCLUDE_VALUES, { error: 'expected intermediate_outputs' }))
    .max(INCLUDE_VALUES.length * 4, 'too many values')
    .nullish(),
  selections: z
    .array(
      z.object({
        kind: z.enum(SELECTION_KINDS, { error: 'expected item or collection' }),
        id: text('an id').max(64, 'at most 64 characters'),
      }),
    )
    .max(RESPONSE_LIMITS.selections, `at most ${RESPONSE_LIMITS.selections} selections`)
    .nullish(),
  text: z
    .object({
      format: z
        .discriminatedUnion('type', [z.object({ type: z.literal('text') }), jsonSchemaFormatShape], {
          error: 'expected type text or json_schema',
        })
        .nullish(),
    })
    .nullish(),
  stream: z.boolean({ error: 'expected a boolean' }).nullish(),
  max_output_tokens: z
    .int({ error: 'expected an integer' })
    .min(1, 'at least 1')
    .max(2 ** 31 - 1, 'too large')
    .nullish(),
  temperature: z.number({ error: 'expected a number' }).min(0, 'at least 0').max(2, 'at most 2').nullish(),
});

export interface Selection {
  kind: (typeof SELECTION_KINDS)[number];
  id: string;
}

/** A valid request, as the route uses it: messages in order, ids checked, the format as analyze-service takes it. */
export interface ResponsesRequest {
  knowledgeStoreId: string;
  input: ResponseMessage[];
  sessionId: string;
  instructions: string;
  selections: Selection[];
  textFormat: ResponseFormat__Input | null;
  includeIntermediate: boolean;
  stream: boolean;
  maxOutputTokens: number;
  temperature?: number;
}

/** The `{{sel:N}}` tokens of a text (spaces inside the braces allowed, as analyze-service reads them), by N as written. */
export const selectionTokens = (content: string): string[] => [...content.matchAll(/\{\{\s*sel:(\d+)\s*\}\}/g)].map((m) => m[1]!);

/**
 * The first `{{sel:N}}` of the messages that names no selection (N is the zero-based position in
 * `selections`), as the message's index and N; undefined when every token names one.
 */
export function unknownSelectionToken(
  messages: readonly { content: string }[],
  selectionCount: number,
): { index: number; n: string } | undefined {
  for (const [index, { content }] of messages.entries()) {
    const n = selectionTokens(content).find((digits) => !(Number(digits) < selectionCount));
    if (n !== undefined) return { index, n };
  }
  return undefined;
}

/**
 * The messages of `input`, in order; the parts of a message are joined by line breaks. `param`
 * names a message in refusals (a string input is `input` itself).
 */
function messagesOf(items: z.infer<typeof inputSchema>, param: (index: number) => string): ResponseMessage[] {
  const messages = items.map((item) => ({ role: item.role, content: item.content.map((part) => part.text).join('\n') }));
  for (const [index, message] of messages.entries()) {
    if (!message.content.trim()) throw errors.invalid(param(index), 'A message must have some text.');
    if (message.content.length > RESPONSE_LIMITS.messageCharacters)
      throw errors.invalid(param(index), `A message may have at most ${RESPONSE_LIMITS.messageCharacters} characters.`);
  }
  if (messages.reduce((sum, m) => sum + m.content.length, 0) > RESPONSE_LIMITS.inputCharacters)
    throw errors.invalid('input', `The input may have at most ${RESPONSE_LIMITS.inputCharacters} characters in all.`);
  if (!messages.some((m) => m.role === 'user')) throw errors.invalid('input', 'The input needs at least one user message.');
  return messages;
}

/** POST /responses: the body, refused with 400 (or 404 for a malformed id, as for an unknown one) before anything is called. */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  const raw = parseInput(responsesRequestSchema, body ?? {});
  const knowledgeStoreId = knownId('Knowledge store', raw.knowledge_store_id);
  const stringInput = typeof (body as Record<string, unknown>).input === 'string';
  const param = (index: number) => (stringInput ? 'input' : `input.${index}.content`);
  const input = messagesOf(raw.input, param);
  if (raw.instructions != null) checkPromptText('instructions', raw.instructions);
  const selections = (raw.selections ?? []).map(({ kind, id }) => ({
    kind,
    id: knownId(kind === 'item' ? 'Knowledge store item' : 'Knowledge store item collection', id),
  }));
  const unknown = unknownSelectionToken(input, selections.length);
  if (unknown)
    throw errors.invalid(
      param(unknown.index),
      `{{sel:${unknown.n}}} names no selection: selections has ${selections.length} (N counts from 0).`,
    );
  const format = raw.text?.format;
  return {
    knowledgeStoreId,
    input,
    sessionId: raw.session_id ?? '',
    instructions: raw.instructions ?? '',
    selections,
    textFormat: format?.type === 'json_schema' ? jsonSchemaFormat('text.format', format.schema) : null,
    includeIntermediate: (raw.include ?? []).includes('intermediate_outputs'),
    stream: raw.stream ?? false,
    maxOutputTokens: raw.max_output_tokens ?? 0,
    ...(raw.temperature != null ? { temperature: raw.temperature } : {}),
  };
}

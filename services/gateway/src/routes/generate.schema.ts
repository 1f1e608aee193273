import { errors, jsonShape, parseInput, RESPONSE_SCHEMA_LIMITS } from '@vus/core';
import { checkPromptText } from '@vus/domain';
import type { ResponseFormat__Input } from '@vus/grpc/types/analyze/v1/ResponseFormat';
import { z } from 'zod';
import { firstValue, looseBoolean, looseInt, looseList } from '../http/coerce';
import type { VersionAdapter } from '../versions';

/** A number from JSON, or from a form field's text. */
const looseNumber = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  z.number(),
);

const videoIdField = z.preprocess(firstValue, z.string({ error: 'expected a string' }).min(1));

/**
 * The video a generation is about: `video_id` (every SDK up to 1.0), or 1.x's newer
 * `video: {type: "asset_id", asset_id}` naming an indexed video by its id. A video given by URL or
 * as base64 is not indexed, so it has no evidence to generate from.
 */
export function videoIdOf(body: Record<string, unknown>): string {
  const video = body.video;
  if (body.video_id === undefined && video && typeof video === 'object') {
    if ((video as Record<string, unknown>).type !== 'asset_id')
      throw errors.invalid('video', 'Only an indexed video can be analyzed: give video_id, or video {type: "asset_id", asset_id}.');
    return parseInput(z.object({ asset_id: videoIdField }), video).asset_id;
  }
  return parseInput(z.object({ video_id: videoIdField }), body).video_id;
}

const options = z.object({
  prompt: z.preprocess(firstValue, z.string({ error: 'expected a string' })).optional(),
  temperature: z.preprocess(firstValue, looseNumber).optional(),
  stream: z.preprocess(firstValue, looseBoolean).optional(),
  max_tokens: z.preprocess(firstValue, looseInt).optional(),
  response_format: z.preprocess(firstValue, z.object({ type: z.string(), json_schema: z.unknown() })).optional(),
});

/** `response_format` as analyze-service takes it (the schema as JSON text), where the version has it. */
function responseFormatOf(version: VersionAdapter, format: z.infer<typeof options>['response_format']): ResponseFormat__Input | undefined {
  if (!version.generate.responseFormat || !format) return undefined;
  if (format.type !== 'json_schema') throw errors.invalid('response_format', 'Its type must be json_schema.');
  const schema = typeof format.json_schema === 'string' ? parseJsonText(format.json_schema) : format.json_schema;
  return jsonSchemaFormat('response_format', schema, 'json_schema');
}

/**
 * A JSON schema as analyze-service takes it (JSON text), checked at the edge for what it can check
 * cheaply: an object, nested no deeper than RESPONSE_SCHEMA_LIMITS (analyze-service checks the rest).
 * /analyze's response_format and /responses' text.format share it; `field` names the schema's field.
 */
export function jsonSchemaFormat(param: string, schema: unknown, field = 'schema'): ResponseFormat__Input {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw errors.invalid(param, `${field} must be a JSON schema object.`);
  // Measured without recursion first: JSON.stringify of a 20,000-level schema throws a RangeError.
  if (jsonShape(schema, { depth: RESPONSE_SCHEMA_LIMITS.depth }).depth > RESPONSE_SCHEMA_LIMITS.depth)
    throw errors.invalid(param, `The JSON schema nests deeper than ${RESPONSE_SCHEMA_LIMITS.depth} levels.`);
  return { type: 'json_schema', json_schema: JSON.stringify(schema) };
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw errors.invalid('response_format', 'json_schema is not valid JSON.');
  }
}

export interface GenerationRequest {
  video_id: string;
  prompt: string;
  temperature?: number;
  max_tokens: number;
  response_format?: ResponseFormat__Input;
}

/** The prompt (empty when unsaid), refused over PROMPT_LIMITS before anything else of the request is read. */
function promptOf(body: Record<string, unknown>): string {
  const { prompt = '' } = parseInput(options.pick({ prompt: true }), body);
  checkPromptText('prompt', prompt);
  return prompt;
}

function generation(version: VersionAdapter, body: Record<string, unknown>): GenerationRequest & { stream: boolean | undefined } {
  const prompt = promptOf(body);
  const videoId = videoIdOf(body);
  const o = parseInput(options, body);
  return {
    video_id: videoId,
    prompt,
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    max_tokens: version.generate.responseFormat ? (o.max_tokens ?? 0) : 0,
    ...(responseFormatOf(version, o.response_format) ? { response_format: responseFormatOf(version, o.response_format) } : {}),
    stream: o.stream,
  };
}

/** POST /gist: `video_id` and a non-empty `types`. */
export function parseGist(body: Record<string, unknown>): { video_id: string; types: string[] } {
  const videoId = videoIdOf(body);
  const { types } = parseInput(z.object({ types: looseList(z.string()) }), body);
  if (types.length === 0) throw errors.notProvided('types');
  return { video_id: videoId, types };
}

/** POST /summarize: `type` (summary, chapter, highlight) and the generation options. */
export function parseSummarize(version: VersionAdapter, body: Record<string, unknown>): GenerationRequest & { type: string } {
  const { type } = parseInput(z.object({ type: z.preprocess(firstValue, z.string({ error: 'expected a string' })) }), body);
  const request: GenerationRequest & { stream?: boolean | undefined } = generation(version, body);
  delete request.stream;
  return { ...request, type };
}

/** POST /generate and /analyze: a prompt, whether to stream (`streamsByDefault` when unsaid), the options. */
export function parseOpenPrompt(
  version: VersionAdapter,
  body: Record<string, unknown>,
  streamsByDefault: boolean,
): { request: GenerationRequest; stream: boolean } {
  const { stream, ...request } = generation(version, body);
  if (!request.prompt.trim()) throw errors.notProvided('prompt');
  return { request, stream: stream ?? streamsByDefault };
}

/**
 * One asynchronous analysis as asked (AnalyzeTaskSpec), checked value by value: the mode and what
 * it allows, max_tokens' range per mode, segment definitions and their fields, windows and time
 * ranges. Pure; every refusal names the parameter as the API spells it.
 */
import { ApiError, errors, jsonShape, RESPONSE_SCHEMA_LIMITS } from '@vus/core';
import { checkPromptText } from '@vus/domain';
import { ANALYSIS_MODES, checkCustomId, maxTokensOf, type AnalysisMode } from './async-rules';

export const MODEL_NAMES = ['pegasus1.5'] as const;
export const FIELD_TYPES = ['string', 'boolean', 'number', 'integer', 'array', 'timestamp'] as const;
export const TIME_FORMATS = ['seconds', 'hh:mm:ss', 'hh:mm:ss.fff'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export type TimeFormat = (typeof TIME_FORMATS)[number];

/** The reference's bounds of segmentation. */
export const SEGMENT_LIMITS = { definitions: 20, enumValues: 100, minSegmentSeconds: 2, minRangeSeconds: 2, minWindowSeconds: 4 } as const;
/** Fields per definition: the reference names no limit; this server's bound on the work of one segment. */
export const MAX_FIELDS = 50;
/** Time ranges per definition: this server's bound. */
export const MAX_TIME_RANGES = 100;

export interface SegmentField {
  name: string;
  type: FieldType;
  description: string;
  format?: TimeFormat | undefined;
  enum?: string[] | undefined;
  itemsType?: Exclude<FieldType, 'array' | 'timestamp'> | undefined;
}

export interface SegmentDefinition {
  id: string;
  description: string;
  fields: SegmentField[];
  timeRanges: { start: number; end: number }[];
}

/** The spec as it arrives over gRPC (proto field names). */
export interface TaskSpecInput {
  video_id: string;
  analysis_mode: string;
  prompt: string;
  temperature?: number | undefined;
  _temperature?: string | undefined;
  max_tokens: number;
  response_format_json: string;
  min_segment_duration?: number | undefined;
  _min_segment_duration?: string | undefined;
  max_segment_duration?: number | undefined;
  _max_segment_duration?: string | undefined;
  start_time?: number | undefined;
  _start_time?: string | undefined;
  end_time?: number | undefined;
  _end_time?: string | undefined;
  custom_id: string;
  model_name: string;
}

/** A checked spec: what is stored with the task and what its run reads. */
export interface TaskSpec {
  videoId: string;
  modelName: string;
  analysisMode: AnalysisMode;
  customId: string;
  prompt: string;
  temperature?: number | undefined;
  /** As asked (0: not set); `maxTokensOf` gives the limit. */
  maxTokens: number;
  /** The response_format object as asked, kept to show it back (request_params). */
  responseFormat?: Record<string, unknown> | undefined;
  /** general with json_schema: the schema as JSON text. */
  jsonSchema?: string | undefined;
  segmentDefinitions?: SegmentDefinition[] | undefined;
  segmentTimeFormat?: TimeFormat | undefined;
  minSegmentDuration?: number | undefined;
  maxSegmentDuration?: number | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optional = <T>(value: T | undefined, set: string | undefined, name: string): T | undefined => (set === name ? value : undefined);

function string(value: unknown, param: string, required = true): string {
  if (value === undefined && !required) return '';
  if (typeof value !== 'string' || (required && value.trim() === '')) throw errors.notProvided(param);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], param: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw errors.invalid(param, `It must be one of ${allowed.join(', ')}.`);
  return value as T;
}

function field(raw: unknown, param: string): SegmentField {
  if (!isObject(raw)) throw errors.invalid(param, 'Each field must be an object.');
  const name = string(raw.name, `${param}.name`);
  const type = oneOf(raw.type, FIELD_TYPES, `${param}.type`);
  const description = string(raw.description, `${param}.description`);
  const out: SegmentField = { name, type, description };
  if (type === 'timestamp') {
    if (raw.format === undefined || raw.format === '')
      throw errors.invalid(`${param}.format`, `format is required for timestamp type; allowed values: ${TIME_FORMATS.join(', ')}`);
    out.format = oneOf(raw.format, TIME_FORMATS, `${param}.format`);
    if (['start_time', 'end_time', 'metadata'].includes(name))
      throw errors.invalid(`${param}.name`, `${name} is reserved for the segment's own boundaries.`);
    if (raw.enum !== undefined || raw.items !== undefined)
      throw errors.invalid(param, 'enum and items are not supported on a timestamp field.');
    return out;
  }
  if (raw.format !== undefined) throw errors.invalid(`${param}.format`, 'format applies only to a timestamp field.');
  if (raw.enum !== undefined) {
    if (!Array.isArray(raw.enum) || raw.enum.some((v) => typeof v !== 'string') || raw.enum.length === 0)
      throw errors.invalid(`${param}.enum`, 'It must be a non-empty list of strings.');
    if (raw.enum.length > SEGMENT_LIMITS.enumValues) throw errors.invalid(`${param}.enum`, `At most ${SEGMENT_LIMITS.enumValues} values.`);
    out.enum = raw.enum as string[];
  }
  if (type === 'array') {
    const items = raw.items;
    if (!isObject(items)) throw errors.notProvided(`${param}.items`);
    out.itemsType = oneOf(items.type, ['string', 'boolean', 'number', 'integer'] as const, `${param}.items.type`);
  }
  return out;
}

function timeRanges(raw: unknown, param: string): { start: number; end: number }[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw errors.invalid(param, 'It must be a list of {start_time, end_time}.');
  if (raw.length > MAX_TIME_RANGES) throw errors.invalid(param, `At most ${MAX_TIME_RANGES} time ranges per definition.`);
  const ranges = raw.map((r: unknown, i) => {
    if (!isObject(r) || typeof r.start_time !== 'number' || typeof r.end_time !== 'number' || r.start_time < 0)
      throw errors.invalid(`${param}[${i}]`, 'It must be {start_time, end_time} in seconds, from 0.');
    if (r.end_time - r.start_time < SEGMENT_LIMITS.minRangeSeconds)
      throw errors.invalid(`${param}[${i}]`, `end_time must be at least ${SEGMENT_LIMITS.minRangeSeconds} seconds after start_time.`);
    return { start: r.start_time, end: r.end_time };
  });
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i]!.start < sorted[i - 1]!.end) throw errors.invalid(param, 'Time ranges of one definition must not overlap.');
  return sorted;
}

function definitions(raw: unknown): SegmentDefinition[] {
  const param = 'response_format.segment_definitions';
  if (!Array.isArray(raw) || raw.length === 0) throw errors.notProvided(param);
  if (raw.length > SEGMENT_LIMITS.definitions) throw errors.invalid(param, `At most ${SEGMENT_LIMITS.definitions} segment definitions.`);
  const ids = new Set<string>();
  return raw.map((d: unknown, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(d)) throw errors.invalid(at, 'Each segment definition must be an object.');
    const id = string(d.id, `${at}.id`);
    if (ids.has(id)) throw errors.invalid(`${at}.id`, `${id} names an earlier definition too.`);
    ids.add(id);
    const description = string(d.description, `${at}.description`);
    checkPromptText(`${at}.description`, description);
    if (d.media_sources !== undefined)
      throw new ApiError(
        'not_implemented',
        'Reference images in segment definitions (media_sources) are not supported by this server: its analysis reads the indexed evidence of the video, not images.',
      );
    if (d.fields !== undefined && !Array.isArray(d.fields)) throw errors.invalid(`${at}.fields`, 'It must be a list.');
    const fields = ((d.fields as unknown[] | undefined) ?? []).map((f, j) => field(f, `${at}.fields[${j}]`));
    if (fields.length > MAX_FIELDS) throw errors.invalid(`${at}.fields`, `At most ${MAX_FIELDS} fields per definition.`);
    const names = fields.map((f) => f.name);
    if (new Set(names).size !== names.length) throw errors.invalid(`${at}.fields`, 'Field names must be unique.');
    return { id, description, fields, timeRanges: timeRanges(d.time_ranges, `${at}.time_ranges`) };
  });
}

function responseFormat(text: string): Record<string, unknown> | undefined {
  if (text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.invalid('response_format', 'It is not valid JSON.');
  }
  if (!isObject(parsed)) throw errors.invalid('response_format', 'It must be an object.');
  if (jsonShape(parsed, RESPONSE_SCHEMA_LIMITS).depth > RESPONSE_SCHEMA_LIMITS.depth)
    throw errors.invalid('response_format', `It nests deeper than ${RESPONSE_SCHEMA_LIMITS.depth} levels.`);
  return parsed;
}

/** The spec checked; throws the first problem as a 400 naming its parameter. */
export function checkTaskSpec(input: TaskSpecInput): TaskSpec {
  const modelName = input.model_name === '' ? 'pegasus1.5' : oneOf(input.model_name, MODEL_NAMES, 'model_name');
  const analysisMode = input.analysis_mode === '' ? 'general' : oneOf(input.analysis_mode, ANALYSIS_MODES, 'analysis_mode');
  checkCustomId(input.custom_id);
  const temperature = optional(input.temperature, input._temperature, 'temperature');
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0 && temperature <= 1))
    throw errors.invalid('temperature', 'It must be a number from 0 to 1.');
  maxTokensOf(analysisMode, input.max_tokens);
  const spec: TaskSpec = {
    videoId: input.video_id,
    modelName,
    analysisMode,
    customId: input.custom_id,
    prompt: input.prompt,
    temperature,
    maxTokens: input.max_tokens,
    startTime: optional(input.start_time, input._start_time, 'start_time'),
    endTime: optional(input.end_time, input._end_time, 'end_time'),
    minSegmentDuration: optional(input.min_segment_duration, input._min_segment_duration, 'min_segment_duration'),
    maxSegmentDuration: optional(input.max_segment_duration, input._max_segment_duration, 'max_segment_duration'),
  };
  checkWindow(spec);
  const format = responseFormat(input.response_format_json);
  if (format) spec.responseFormat = format;
  if (analysisMode === 'general') {
    if (spec.prompt.trim() === '') throw errors.notProvided('prompt');
    checkPromptText('prompt', spec.prompt);
    if (spec.minSegmentDuration !== undefined || spec.maxSegmentDuration !== undefined)
      throw errors.invalid('min_segment_duration', 'Segment durations require analysis_mode time_based_metadata.');
    if (format) {
      if (format.type !== 'json_schema')
        throw errors.invalid(
          'response_format.type',
          'With analysis_mode general it must be json_schema (segment_definitions requires time_based_metadata).',
        );
      if (!isObject(format.json_schema)) throw errors.notProvided('response_format.json_schema');
      spec.jsonSchema = JSON.stringify(format.json_schema);
    }
    return spec;
  }
  if (spec.prompt !== '')
    throw errors.invalid(
      'prompt',
      'A prompt is not supported with analysis_mode time_based_metadata; describe segments in response_format.segment_definitions.',
    );
  if (!format) throw errors.notProvided('response_format');
  if (format.type !== 'segment_definitions')
    throw errors.invalid('response_format.type', 'With analysis_mode time_based_metadata it must be segment_definitions.');
  spec.segmentDefinitions = definitions(format.segment_definitions);
  if (format.segment_time_format !== undefined)
    spec.segmentTimeFormat = oneOf(format.segment_time_format, TIME_FORMATS, 'response_format.segment_time_format');
  checkSegmentDurations(spec);
  return spec;
}

function checkWindow(spec: TaskSpec): void {
  const { startTime, endTime } = spec;
  if (startTime !== undefined && !(Number.isFinite(startTime) && startTime >= 0))
    throw errors.invalid('start_time', 'It must be a number of seconds from 0.');
  if (endTime !== undefined && !(Number.isFinite(endTime) && endTime > 0))
    throw errors.invalid('end_time', 'It must be a positive number of seconds.');
  if (startTime !== undefined && endTime !== undefined && endTime - startTime < SEGMENT_LIMITS.minWindowSeconds)
    throw errors.invalid('end_time', `The clip (end_time - start_time) must be at least ${SEGMENT_LIMITS.minWindowSeconds} seconds.`);
}

function checkSegmentDurations(spec: TaskSpec): void {
  const { minSegmentDuration: min, maxSegmentDuration: max } = spec;
  for (const [name, value] of [
    ['min_segment_duration', min],
    ['max_segment_duration', max],
  ] as const)
    if (value !== undefined && !(Number.isFinite(value) && value >= SEGMENT_LIMITS.minSegmentSeconds))
      throw errors.invalid(name, `It must be at least ${SEGMENT_LIMITS.minSegmentSeconds} seconds.`);
  if (min !== undefined && max !== undefined && max < min)
    throw errors.invalid('max_segment_duration', 'It must be greater than or equal to min_segment_duration.');
  const ranged = spec.segmentDefinitions?.some((d) => d.timeRanges.length > 0);
  if (ranged && (min !== undefined || max !== undefined))
    throw errors.invalid(
      'response_format.segment_definitions',
      'time_ranges cannot be combined with min_segment_duration or max_segment_duration.',
    );
  if (ranged && (spec.startTime !== undefined || spec.endTime !== undefined))
    throw errors.invalid('response_format.segment_definitions', 'time_ranges cannot be combined with start_time or end_time.');
}

/**
 * Asynchronous analysis's pure rules: task status transitions, a batch's status from its items,
 * limits of a request (async-rules.ts), the request's checks (async-spec.ts) and the segmentation's
 * spans and time formats (segments.ts).
 */
import { isApiError } from '@vus/core';
import {
  batchStatus,
  canMove,
  checkBatchDeletable,
  checkCancelable,
  checkDeletable,
  checkUniqueCustomIds,
  countItems,
  maxTokensOf,
  TASK_STATUSES,
  type BatchStatus,
  type TaskStatus,
} from '../src/async-rules';
import { checkTaskSpec, type TaskSpecInput } from '../src/async-spec';
import { fieldsSchema, formatTime, segmentSpans, segmentVideo } from '../src/segments';
import type { Timeline } from '../src/evidence';

/** The error a call throws: code and param, or 'ok'. */
function outcome(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (!isApiError(error)) throw error;
    return `${error.code}${error.details?.param ? ` ${error.details.param}` : ''}`;
  }
}

describe('task status transitions', () => {
  const allowed: [TaskStatus, TaskStatus][] = [
    ['queued', 'processing'],
    ['queued', 'canceled'],
    ['queued', 'failed'],
    ['processing', 'ready'],
    ['processing', 'failed'],
    ['processing', 'queued'],
  ];
  it.each(TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as const)))('%s → %s', (from, to) => {
    const expected =
      allowed.some(([a, b]) => a === from && b === to) || (from === 'pending' && ['processing', 'canceled', 'failed'].includes(to));
    expect(canMove(from, to)).toBe(expected);
  });

  it.each([
    ['queued', 'ok'],
    ['processing', 'parameter_invalid task_id'],
    ['ready', 'ok'],
    ['failed', 'ok'],
    ['canceled', 'ok'],
  ] as const)('a %s task deleted: %s', (status, expected) => {
    expect(outcome(() => checkDeletable('0'.repeat(24), status))).toBe(expected);
  });
});

describe('a batch status from its items', () => {
  const counts = (queued: number, processing: number, ready: number, failed: number, canceled: number) => ({
    queued,
    processing,
    ready,
    failed,
    canceled,
  });
  it.each([
    // nothing taken yet
    [counts(3, 0, 0, 0, 0), false, false, 'pending'],
    [counts(2, 1, 0, 0, 0), false, false, 'processing'],
    [counts(1, 0, 1, 0, 0), false, false, 'processing'],
    [counts(0, 0, 2, 1, 0), false, false, 'completed'],
    // completed is not success: every item may have failed
    [counts(0, 0, 0, 3, 0), false, false, 'completed'],
    [counts(0, 1, 0, 0, 2), true, false, 'canceling'],
    [counts(0, 0, 1, 0, 2), true, false, 'canceled'],
    [counts(0, 0, 0, 0, 3), true, false, 'canceled'],
    [counts(0, 1, 0, 0, 1), false, true, 'processing'],
    [counts(0, 0, 1, 0, 1), false, true, 'expired'],
    [counts(0, 0, 1, 0, 1), true, true, 'expired'],
  ] as const)('%j cancel=%s expired=%s → %s', (c, cancelRequested, expired, expected) => {
    expect(batchStatus(c, { cancelRequested, expired })).toBe(expected);
  });

  it('counts a pending task as queued', () => {
    expect(countItems(['pending', 'queued', 'processing', 'ready', 'failed', 'canceled', 'ready'])).toEqual(counts(2, 1, 2, 1, 1));
  });

  it.each([
    ['pending', 'ok', 'parameter_invalid batch_id'],
    ['processing', 'ok', 'parameter_invalid batch_id'],
    ['canceling', 'ok', 'parameter_invalid batch_id'],
    ['canceled', 'parameter_invalid batch_id', 'ok'],
    ['completed', 'parameter_invalid batch_id', 'ok'],
    ['expired', 'parameter_invalid batch_id', 'ok'],
  ] as const)('a %s batch: cancel %s, delete %s', (status: BatchStatus, cancel, remove) => {
    expect(outcome(() => checkCancelable('b', status))).toBe(cancel);
    expect(outcome(() => checkBatchDeletable('b', status))).toBe(remove);
  });

  it('refuses a custom_id used twice in one batch, naming the later request', () => {
    expect(outcome(() => checkUniqueCustomIds(['a', '', 'b', '', 'a']))).toBe('parameter_invalid requests[4].custom_id');
    expect(outcome(() => checkUniqueCustomIds(['a', '', 'b', '']))).toBe('ok');
  });
});

describe('max_tokens per mode', () => {
  it.each([
    ['general', undefined, 4096],
    ['general', 0, 4096],
    ['general', 512, 512],
    ['general', 98_304, 98_304],
    ['general', 511, 'parameter_invalid max_tokens'],
    ['general', 98_305, 'parameter_invalid max_tokens'],
    ['general', 1000.5, 'parameter_invalid max_tokens'],
    ['time_based_metadata', undefined, 32_768],
    ['time_based_metadata', 2048, 2048],
    ['time_based_metadata', 2047, 'parameter_invalid max_tokens'],
  ] as const)('%s %s → %s', (mode, asked, expected) => {
    if (typeof expected === 'number') expect(maxTokensOf(mode, asked)).toBe(expected);
    else expect(outcome(() => maxTokensOf(mode, asked))).toBe(expected);
  });
});

describe('checkTaskSpec', () => {
  const base: TaskSpecInput = {
    video_id: 'a'.repeat(24),
    analysis_mode: '',
    prompt: 'What happens?',
    max_tokens: 0,
    response_format_json: '',
    custom_id: '',
    model_name: '',
  };
  const segments = (definitions: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type: 'segment_definitions', segment_definitions: definitions, ...extra });
  const scene = { id: 'scene', description: 'A scene', fields: [{ name: 'label', type: 'string', description: 'A label' }] };
  const seg = (over: Partial<TaskSpecInput>): TaskSpecInput => ({ ...base, analysis_mode: 'time_based_metadata', prompt: '', ...over });

  it.each([
    ['a prompt, defaults', {}, 'ok'],
    ['no prompt', { prompt: '  ' }, 'parameter_not_provided prompt'],
    ['another model', { model_name: 'pegasus1.2' }, 'parameter_invalid model_name'],
    ['an unknown mode', { analysis_mode: 'summary' }, 'parameter_invalid analysis_mode'],
    ['a bad custom_id', { custom_id: 'has space' }, 'parameter_invalid custom_id'],
    ['a custom_id of 65 characters', { custom_id: 'x'.repeat(65) }, 'parameter_invalid custom_id'],
    ['temperature 1.5', { temperature: 1.5, _temperature: 'temperature' }, 'parameter_invalid temperature'],
    [
      'a window under 4 s',
      { start_time: 10, _start_time: 'start_time', end_time: 13, _end_time: 'end_time' },
      'parameter_invalid end_time',
    ],
    [
      'segment durations in general mode',
      { min_segment_duration: 5, _min_segment_duration: 'min_segment_duration' },
      'parameter_invalid min_segment_duration',
    ],
    ['json_schema', { response_format_json: JSON.stringify({ type: 'json_schema', json_schema: { type: 'object' } }) }, 'ok'],
    ['segment_definitions in general mode', { response_format_json: segments([scene]) }, 'parameter_invalid response_format.type'],
    ['response_format that is not JSON', { response_format_json: '{' }, 'parameter_invalid response_format'],
    ['segmentation', seg({ response_format_json: segments([scene]) }), 'ok'],
    ['segmentation with a prompt', seg({ prompt: 'x', response_format_json: segments([scene]) }), 'parameter_invalid prompt'],
    ['segmentation without response_format', seg({}), 'parameter_not_provided response_format'],
    ['no definitions', seg({ response_format_json: segments([]) }), 'parameter_not_provided response_format.segment_definitions'],
    [
      '21 definitions',
      seg({ response_format_json: segments(Array.from({ length: 21 }, (_, i) => ({ ...scene, id: `s${i}` }))) }),
      'parameter_invalid response_format.segment_definitions',
    ],
    [
      'two definitions with one id',
      seg({ response_format_json: segments([scene, scene]) }),
      'parameter_invalid response_format.segment_definitions[1].id',
    ],
    [
      'a timestamp without format',
      seg({ response_format_json: segments([{ ...scene, fields: [{ name: 'at', type: 'timestamp', description: 'd' }] }]) }),
      'parameter_invalid response_format.segment_definitions[0].fields[0].format',
    ],
    [
      'a format on a string',
      seg({
        response_format_json: segments([{ ...scene, fields: [{ name: 'at', type: 'string', description: 'd', format: 'seconds' }] }]),
      }),
      'parameter_invalid response_format.segment_definitions[0].fields[0].format',
    ],
    [
      'a timestamp named start_time',
      seg({
        response_format_json: segments([
          { ...scene, fields: [{ name: 'start_time', type: 'timestamp', description: 'd', format: 'seconds' }] },
        ]),
      }),
      'parameter_invalid response_format.segment_definitions[0].fields[0].name',
    ],
    [
      'an array without items',
      seg({ response_format_json: segments([{ ...scene, fields: [{ name: 'objects', type: 'array', description: 'd' }] }]) }),
      'parameter_not_provided response_format.segment_definitions[0].fields[0].items',
    ],
    [
      'overlapping time ranges',
      seg({
        response_format_json: segments([
          {
            ...scene,
            time_ranges: [
              { start_time: 0, end_time: 5 },
              { start_time: 4, end_time: 9 },
            ],
          },
        ]),
      }),
      'parameter_invalid response_format.segment_definitions[0].time_ranges',
    ],
    [
      'touching time ranges',
      seg({
        response_format_json: segments([
          {
            ...scene,
            time_ranges: [
              { start_time: 0, end_time: 5 },
              { start_time: 5, end_time: 9 },
            ],
          },
        ]),
      }),
      'ok',
    ],
    [
      'a time range under 2 s',
      seg({ response_format_json: segments([{ ...scene, time_ranges: [{ start_time: 0, end_time: 1 }] }]) }),
      'parameter_invalid response_format.segment_definitions[0].time_ranges[0]',
    ],
    [
      'time ranges with min_segment_duration',
      seg({
        response_format_json: segments([{ ...scene, time_ranges: [{ start_time: 0, end_time: 5 }] }]),
        min_segment_duration: 2,
        _min_segment_duration: 'min_segment_duration',
      }),
      'parameter_invalid response_format.segment_definitions',
    ],
    [
      'max under min',
      seg({
        response_format_json: segments([scene]),
        min_segment_duration: 10,
        _min_segment_duration: 'min_segment_duration',
        max_segment_duration: 5,
        _max_segment_duration: 'max_segment_duration',
      }),
      'parameter_invalid max_segment_duration',
    ],
    ['reference images', seg({ response_format_json: segments([{ ...scene, media_sources: [] }]) }), 'not_implemented'],
    [
      'a bad segment_time_format',
      seg({ response_format_json: segments([scene], { segment_time_format: 'ms' }) }),
      'parameter_invalid response_format.segment_time_format',
    ],
  ])('%s', (_name, over, expected) => {
    expect(outcome(() => checkTaskSpec({ ...base, ...over }))).toBe(expected);
  });
});

describe('segmentation', () => {
  it.each([
    [
      'shots as they are',
      [
        [0, 3],
        [3, 10],
        [10, 12],
      ],
      [[0, 12]],
      undefined,
      undefined,
      [
        [0, 3],
        [3, 10],
        [10, 12],
      ],
    ],
    [
      'short shots joined, a short tail joins the one before',
      [
        [0, 1],
        [1, 2],
        [2, 6],
        [6, 7],
      ],
      [[0, 7]],
      2,
      undefined,
      [
        [0, 2],
        [2, 7],
      ],
    ],
    [
      'a long shot split in equal parts',
      [[0, 10]],
      [[0, 10]],
      undefined,
      4,
      [
        [0, 3.333],
        [3.333, 6.667],
        [6.667, 10],
      ],
    ],
    [
      'clipped to the window',
      [
        [0, 5],
        [5, 10],
      ],
      [[3, 8]],
      undefined,
      undefined,
      [
        [3, 5],
        [5, 8],
      ],
    ],
    [
      'two windows',
      [[0, 10]],
      [
        [0, 2],
        [6, 8],
      ],
      undefined,
      undefined,
      [
        [0, 2],
        [6, 8],
      ],
    ],
    ['no shots: the window', [], [[0, 4]], undefined, undefined, [[0, 4]]],
  ] as const)('%s', (_name, shots, windows, min, max, expected) => {
    const span = ([start, end]: readonly [number, number]) => ({ start, end });
    expect(segmentSpans(shots.map(span), windows.map(span), min, max)).toEqual(expected.map(span));
  });

  it.each([
    [83.5, 'seconds', 83.5],
    [83.5, 'hh:mm:ss', '00:01:24'],
    [83.5, 'hh:mm:ss.fff', '00:01:23.500'],
    [3725.25, 'hh:mm:ss.fff', '01:02:05.250'],
    [-2, 'hh:mm:ss', '00:00:00'],
  ] as const)('%s s as %s → %s', (seconds, format, expected) => {
    expect(formatTime(seconds, format)).toBe(expected);
  });

  it('builds the fill schema from the fields, leaving timestamps to the segment', () => {
    expect(
      fieldsSchema([
        { name: 'mood', type: 'string', description: 'd', enum: ['calm', 'tense'] },
        { name: 'objects', type: 'array', description: 'd', itemsType: 'string' },
        { name: 'at', type: 'timestamp', description: 'd', format: 'seconds' },
      ]),
    ).toEqual({
      type: 'object',
      properties: {
        mood: { type: 'string', description: 'd', enum: ['calm', 'tense'] },
        objects: { type: 'array', items: { type: 'string' }, description: 'd' },
      },
      required: ['mood', 'objects'],
    });
  });

  it('fills each segment from its own evidence, keyed by definition id', async () => {
    const timeline: Timeline = {
      videoId: 'v',
      indexId: 'i',
      title: 't',
      duration: 10,
      items: [
        { kind: 'text', start: 1, end: 2, text: 'orange' },
        { kind: 'text', start: 6, end: 7, text: 'planet' },
      ],
      shots: [
        { start: 0, end: 5, labels: [] },
        { start: 5, end: 10, labels: [] },
      ],
    };
    const spec = checkTaskSpec({
      video_id: 'a'.repeat(24),
      analysis_mode: 'time_based_metadata',
      prompt: '',
      max_tokens: 0,
      custom_id: '',
      model_name: '',
      response_format_json: JSON.stringify({
        type: 'segment_definitions',
        segment_time_format: 'hh:mm:ss',
        segment_definitions: [
          {
            id: 'scenes',
            description: 'Scenes',
            fields: [
              { name: 'words', type: 'string', description: 'the words shown' },
              { name: 'first_word_at', type: 'timestamp', description: 'when', format: 'seconds' },
            ],
          },
        ],
      }),
    });
    const prompts: string[] = [];
    const data = await segmentVideo(timeline, spec, async (part, prompt) => {
      prompts.push(prompt);
      return { words: part.items.map((e) => e.text).join(' ') };
    });
    expect(data).toEqual({
      scenes: [
        { start_time: '00:00:00', end_time: '00:00:05', metadata: { words: 'orange', first_word_at: 1 } },
        { start_time: '00:00:05', end_time: '00:00:10', metadata: { words: 'planet', first_word_at: 6 } },
      ],
    });
    expect(prompts[0]).toBe('Scenes\nwords: the words shown\nfirst_word_at: when');
  });
});

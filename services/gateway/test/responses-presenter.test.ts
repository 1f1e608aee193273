import type { VideoCitation } from '@vus/grpc/types/analyze/v1/VideoCitation';
import {
  annotationsOf,
  codePointOffset,
  presentResponse,
  responseEvents,
  responseEventStream,
  sseFrame,
  type Finished,
  type ResponseHead,
} from '../src/presenters/responses';

const HEAD: ResponseHead = {
  id: 'resp_0199aa2e-5b3c-7d4e-8f90-123456789abc',
  sessionId: 'sess_0199aa2e-5b3b-7a01-9018-cc51681121ea',
  knowledgeStoreId: '6528dde58f9cd95a98cbd075',
  createdAt: '2026-11-28T11:00:00Z',
  messageId: 'msg_sess_0199aa2e-5b3b-7a01-9018-cc51681121ea_0',
};

const annotation = {
  type: 'video_citation' as const,
  start_index: 10,
  end_index: 12,
  item_id: 'ksi1',
  start_sec: 4,
  end_sec: 9,
  title: 'garden.mp4',
  thumbnail_url: 'https://t',
  hls_url: 'https://h',
};

const done = (over: Partial<Finished> = {}): Finished => ({
  text: 'Roses bud [1].',
  annotations: [annotation],
  status: 'completed',
  incompleteReason: '',
  usage: { input_tokens: 40, output_tokens: 5 },
  ...over,
});

const STEP = { kind: 'retrieval', summary: 'found 2 moments', detail_json: '{"query":"roses","moments":[]}' };

/** Each event as `<type>` plus what tells it apart. */
const outline = (events: ReturnType<typeof responseEvents>) =>
  events.map((e) => {
    const item = e.item as { type: string; status: string } | undefined;
    const response = e.response as { status: string } | undefined;
    const detail = item
      ? ` ${item.type}:${item.status}`
      : response
        ? ` ${response.status}`
        : typeof e.delta === 'string'
          ? ` ${JSON.stringify(e.delta)}`
          : '';
    return `${e.type}${detail}`;
  });

describe('responseEvents (started, steps, deltas, completed → the SSE events)', () => {
  it.each([
    [
      'an answer streamed in two deltas',
      [],
      ['Roses ', 'bud [1].'],
      done(),
      [
        'response.created in_progress',
        'response.in_progress in_progress',
        'response.output_item.added message:in_progress',
        'response.content_part.added',
        'response.output_text.delta "Roses "',
        'response.output_text.delta "bud [1]."',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done message:completed',
        'response.completed completed',
      ],
    ],
    [
      'an answer that was not streamed arrives as one delta',
      [],
      [],
      done(),
      [
        'response.created in_progress',
        'response.in_progress in_progress',
        'response.output_item.added message:in_progress',
        'response.content_part.added',
        'response.output_text.delta "Roses bud [1]."',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done message:completed',
        'response.completed completed',
      ],
    ],
    [
      'a step (include intermediate_outputs) comes before the message',
      [STEP],
      ['Roses bud [1].'],
      done(),
      [
        'response.created in_progress',
        'response.in_progress in_progress',
        'response.output_item.added function_call:in_progress',
        'response.function_call_arguments.done',
        'response.output_item.done function_call:completed',
        'response.output_item.added function_call_output:completed',
        'response.output_item.done function_call_output:completed',
        'response.output_item.added message:in_progress',
        'response.content_part.added',
        'response.output_text.delta "Roses bud [1]."',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done message:completed',
        'response.completed completed',
      ],
    ],
    [
      'an answer cut at max_output_tokens ends completed, its status incomplete',
      [],
      ['Roses'],
      done({ text: 'Roses', annotations: [], status: 'incomplete', incompleteReason: 'max_output_tokens' }),
      [
        'response.created in_progress',
        'response.in_progress in_progress',
        'response.output_item.added message:in_progress',
        'response.content_part.added',
        'response.output_text.delta "Roses"',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done message:incomplete',
        'response.completed incomplete',
      ],
    ],
  ])('%s', (_case, steps, deltas, finished, expected) => {
    const events = responseEvents(HEAD, steps, deltas, finished);
    expect(outline(events)).toEqual(expected);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
  });

  it('says where each part is: the message after the steps, its content part 0', () => {
    const events = responseEvents(HEAD, [STEP], ['Roses bud [1].'], done());
    const delta = events.find((e) => e.type === 'response.output_text.delta')!;
    expect(delta).toMatchObject({ item_id: HEAD.messageId, output_index: 2, content_index: 0 });
    const args = events.find((e) => e.type === 'response.function_call_arguments.done')!;
    expect(args).toMatchObject({ output_index: 0, arguments: '{"query":"roses"}' });
  });

  it('gives the annotations with the finished part and the response, not with the deltas', () => {
    const events = responseEvents(HEAD, [], ['Roses bud [1].'], done());
    expect(events.find((e) => e.type === 'response.content_part.added')!.part).toEqual({ type: 'output_text', text: '', annotations: [] });
    expect(events.find((e) => e.type === 'response.content_part.done')!.part).toEqual({
      type: 'output_text',
      text: 'Roses bud [1].',
      annotations: [annotation],
    });
    expect(events.find((e) => e.type === 'response.output_text.done')!.text).toBe('Roses bud [1].');
  });

  it('starts with the response in progress, empty, without usage', () => {
    const [created] = responseEvents(HEAD, [], [], done());
    expect(created!.response).toEqual({
      id: HEAD.id,
      type: 'response',
      object: 'response',
      status: 'in_progress',
      incomplete_details: null,
      session_id: HEAD.sessionId,
      knowledge_store_id: HEAD.knowledgeStoreId,
      output: [],
      created_at: HEAD.createdAt,
    });
  });
});

describe('presentResponse (stream: false)', () => {
  it('is the response the events end with: the reference example’s shape', () => {
    expect(presentResponse(HEAD, [], done())).toEqual({
      id: HEAD.id,
      type: 'response',
      object: 'response',
      status: 'completed',
      incomplete_details: null,
      session_id: HEAD.sessionId,
      knowledge_store_id: HEAD.knowledgeStoreId,
      output: [
        {
          type: 'message',
          id: HEAD.messageId,
          status: 'completed',
          role: 'assistant',
          phase: 'final_answer',
          content: [{ type: 'output_text', text: 'Roses bud [1].', annotations: [annotation] }],
        },
      ],
      usage: { input_tokens: 40, output_tokens: 5 },
      created_at: HEAD.createdAt,
    });
  });

  it('puts the steps first, as a function call and its output sharing a call id', () => {
    const output = presentResponse(HEAD, [STEP], done()).output as Record<string, unknown>[];
    expect(output.map((o) => o.type)).toEqual(['function_call', 'function_call_output', 'message']);
    expect(output[0]).toMatchObject({ name: 'retrieval', arguments: '{"query":"roses"}', status: 'completed' });
    expect(output[1]).toMatchObject({ call_id: output[0]!.call_id, output: STEP.detail_json });
  });

  it('says why an answer is incomplete', () => {
    const response = presentResponse(HEAD, [], done({ status: 'incomplete', incompleteReason: 'max_output_tokens' }));
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });
});

describe('a stream that fails after it began', () => {
  it('ends with response.failed: the error, and the message cut where it stopped', () => {
    const stream = responseEventStream(HEAD);
    const events = [
      ...stream.opened(),
      ...stream.delta('Roses '),
      ...stream.failed({ code: 'internal_error', message: 'The response failed.' }),
    ];
    const failed = events[events.length - 1]!;
    expect(failed.type).toBe('response.failed');
    expect(failed.sequence_number).toBe(events.length - 1);
    expect(failed.response).toMatchObject({
      status: 'failed',
      error: { code: 'internal_error', message: 'The response failed.' },
      output: [{ type: 'message', status: 'incomplete', content: [{ text: 'Roses ', annotations: [] }] }],
    });
  });

  it('before any text: no output', () => {
    const stream = responseEventStream(HEAD);
    const events = [...stream.opened(), ...stream.failed({ code: 'resource_not_exist', message: 'Session … does not exist.' })];
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect((events[2]!.response as { output: unknown[] }).output).toEqual([]);
  });
});

describe('sseFrame', () => {
  it('writes event: and data: lines and a blank line', () => {
    const [created] = responseEvents(HEAD, [], [], done());
    expect(sseFrame(created!)).toBe(`event: response.created\ndata: ${JSON.stringify(created)}\n\n`);
  });
});

describe('annotationsOf (UTF-16, end exclusive → code points, end inclusive)', () => {
  const citation = (over: Partial<VideoCitation>): VideoCitation => ({
    start_index: 0,
    end_index: 3,
    item_id: 'ksi1',
    video_id: 'v1',
    start_sec: 4,
    end_sec: 9,
    title: 'garden.mp4',
    ...over,
  });
  const media = { thumbnail_url: 'https://t', hls_url: 'https://h' };
  const video = () => 'video';

  it.each([
    ['ASCII: the reference example', 'Roses bud [1].', 10, 13, 10, 12],
    ['after an emoji (a surrogate pair is one code point)', '🌹 bud [1].', 7, 10, 6, 8],
    ['after accents (one unit each)', 'Rosés [1]', 6, 9, 6, 8],
  ])('%s', (_case, text, start, end, startIndex, endIndex) => {
    const [a] = annotationsOf(text, [citation({ start_index: start, end_index: end })], video, () => media);
    expect(a).toMatchObject({ start_index: startIndex, end_index: endIndex });
    expect([...text].slice(a!.start_index, a!.end_index + 1).join('')).toBe('[1]');
  });

  it('gives a video citation its moment and URLs, an image citation neither times nor a stream', () => {
    const types: Record<string, string> = { ksi1: 'video', ksi2: 'image' };
    const text = 'A [1] B [2]';
    const annotations = annotationsOf(
      text,
      [citation({ start_index: 8, end_index: 11, item_id: 'ksi2', title: '' }), citation({ start_index: 2, end_index: 5 })],
      (id) => types[id],
      () => media,
    );
    expect(annotations).toEqual([
      { type: 'video_citation', start_index: 2, end_index: 4, item_id: 'ksi1', start_sec: 4, end_sec: 9, title: 'garden.mp4', ...media },
      { type: 'image_citation', start_index: 8, end_index: 10, item_id: 'ksi2', title: null, thumbnail_url: 'https://t', hls_url: null },
    ]);
  });

  it('resolves a marker to one citation: the first of [1, 2]', () => {
    const text = 'Roses [1, 2].';
    const annotations = annotationsOf(
      text,
      [citation({ start_index: 6, end_index: 12, item_id: 'ksi1' }), citation({ start_index: 6, end_index: 12, item_id: 'ksi2' })],
      video,
      () => media,
    );
    expect(annotations.map((a) => a.item_id)).toEqual(['ksi1']);
  });

  it.each([
    ['past the end', 13, 16],
    ['empty', 3, 3],
    ['backwards', 5, 2],
    ['negative', -1, 2],
  ])('leaves out a span %s', (_case, start, end) => {
    expect(annotationsOf('Roses bud [1].', [citation({ start_index: start, end_index: end })], video, () => media)).toEqual([]);
  });

  it.each([
    ['', 0, 0],
    ['abc', 2, 2],
    ['🌹🌹', 2, 1],
    ['🌹🌹', 4, 2],
    ['a', 5, 1],
  ])('codePointOffset(%j, %d) = %d', (text, utf16, points) => {
    expect(codePointOffset(text, utf16)).toBe(points);
  });
});

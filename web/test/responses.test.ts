import {
  answerParts,
  answerSegments,
  citedMoments,
  readCitation,
  readResponseEvent,
  responseRequest,
  utf16Offset,
} from '../src/lib/responses';
import type { Citation } from '../src/lib/responses';
import { MAX_SSE_LINE, SseMessages } from '../src/lib/sse';

/**
 * The reference's streamed example (twelvelabs-js 1.3.4 reference.md, "Responses"), trimmed to its
 * event kinds: offsets in code points, the end inclusive (its `[1]` is 211 to 213; here 68 to 70).
 */
const TEXT = 'The video captures a heated sideline moment during Super Bowl LVIII [1].';
const CITATION = {
  type: 'video_citation',
  start_index: 68,
  end_index: 70,
  item_id: 'ksi_1',
  start_sec: 0,
  end_sec: 9,
  title: 'Super Bowl LVIII sideline',
  thumbnail_url: 'https://example.com/thumbnail.jpg',
  hls_url: 'https://example.com/stream.m3u8',
};
const COMPLETED = {
  type: 'response.completed',
  sequence_number: 7,
  response: {
    id: 'resp_1',
    status: 'completed',
    session_id: 'sess_1',
    output: [
      {
        type: 'message',
        role: 'assistant',
        phase: 'final_answer',
        content: [{ type: 'output_text', text: TEXT, annotations: [CITATION] }],
      },
    ],
  },
};
const WIRE = [
  'event: response.created',
  'data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[],"session_id":"sess_1"}}',
  '',
  ': a comment line, ignored',
  'event: response.output_text.delta',
  'data: {"type":"response.output_text.delta","sequence_number":4,"delta":"The video captures a heated sideline moment"}',
  '',
  'event: response.output_text.delta',
  'data: {"type":"response.output_text.delta","sequence_number":5,"delta":" during Super Bowl LVIII [1]."}',
  '',
  'event: response.completed',
  `data: ${JSON.stringify(COMPLETED)}`,
  '',
  'data: [DONE]',
  '',
  '',
].join('\n');

const citation = (startIndex: number, endIndex: number, itemId = 'ksi_1', startSec = 4, endSec = 8): Citation => ({
  kind: 'video',
  startIndex,
  endIndex,
  itemId,
  startSec,
  endSec,
  title: itemId,
  thumbnailUrl: undefined,
  hlsUrl: undefined,
});

describe('SseMessages', () => {
  it.each([1, 2, 5, 64, WIRE.length])('gives whole events whatever the chunking (%i characters a chunk)', (size) => {
    const messages = new SseMessages();
    const got = [];
    for (let i = 0; i < WIRE.length; i += size) got.push(...messages.push(WIRE.slice(i, i + size)));
    got.push(...messages.end());
    expect(got.map((m) => m.event)).toEqual([
      'response.created',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.completed',
      'message',
    ]);
    expect(got.map(readResponseEvent).map((e) => e.kind)).toEqual(['started', 'delta', 'delta', 'completed', 'done']);
  });

  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
  ])('reads %s line endings, even split between chunks', (_name, eol) => {
    const wire = `event: a${eol}data: one${eol}data:two${eol}${eol}data: three${eol}${eol}`;
    for (let cut = 0; cut <= wire.length; cut++) {
      const messages = new SseMessages();
      const got = [...messages.push(wire.slice(0, cut)), ...messages.push(wire.slice(cut)), ...messages.end()];
      expect(got).toEqual([
        { event: 'a', data: 'one\ntwo' },
        { event: 'message', data: 'three' },
      ]);
    }
  });

  it('dispatches a last event the stream did not end with a blank line, and none without data', () => {
    const messages = new SseMessages();
    expect(messages.push('event: lonely\n\nevent: x\ndata: {"type":"y"}')).toEqual([]);
    expect(messages.end()).toEqual([{ event: 'x', data: '{"type":"y"}' }]);
  });

  it('refuses a line that never ends rather than holding it all', () => {
    const messages = new SseMessages();
    expect(() => messages.push(`data: ${'x'.repeat(MAX_SSE_LINE)}`)).toThrow('too long');
  });
});

describe('readResponseEvent', () => {
  it.each([
    ['a delta', { data: '{"type":"response.output_text.delta","delta":"Hi"}' }, { kind: 'delta', text: 'Hi' }],
    ['a delta without text', { data: '{"type":"response.output_text.delta"}' }, { kind: 'delta', text: '' }],
    [
      'the created response',
      { data: '{"type":"response.created","response":{"session_id":"sess_9"}}' },
      { kind: 'started', sessionId: 'sess_9' },
    ],
    ['the end of the stream', { data: '[DONE]' }, { kind: 'done' }],
    ['an event the page does not use', { data: '{"type":"response.content_part.added"}' }, { kind: 'other' }],
    ['the type from the event name', { event: 'response.output_text.delta', data: '{"delta":"x"}' }, { kind: 'delta', text: 'x' }],
    [
      'a failed response',
      { data: '{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The search failed."}}}' },
      { kind: 'failed', message: 'The search failed.' },
    ],
    [
      'an error event',
      { data: '{"type":"error","code":"too_many_requests","message":"Slow down."}' },
      { kind: 'failed', message: 'Slow down.' },
    ],
    ['an error without words', { data: '{"type":"error"}' }, { kind: 'failed', message: 'The server stopped answering with an error.' }],
    ['data that is not JSON', { data: '{"type":' }, { kind: 'failed', message: 'The server sent an event the page could not read.' }],
  ])('%s', (_name, message, expected) => {
    expect(readResponseEvent({ event: 'message', ...message })).toEqual(expected);
  });

  it('reads the completed response: its text, citations and session', () => {
    expect(readResponseEvent({ event: 'response.completed', data: JSON.stringify(COMPLETED) })).toEqual({
      kind: 'completed',
      sessionId: 'sess_1',
      incomplete: undefined,
      parts: [
        {
          text: TEXT,
          citations: [
            {
              kind: 'video',
              startIndex: 68,
              endIndex: 71,
              itemId: 'ksi_1',
              startSec: 0,
              endSec: 9,
              title: 'Super Bowl LVIII sideline',
              thumbnailUrl: 'https://example.com/thumbnail.jpg',
              hlsUrl: 'https://example.com/stream.m3u8',
            },
          ],
        },
      ],
    });
  });

  it('says why an answer is incomplete', () => {
    const incomplete = {
      type: 'response.completed',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    };
    expect(readResponseEvent({ event: 'message', data: JSON.stringify(incomplete) })).toMatchObject({ incomplete: 'max_output_tokens' });
  });
});

describe('readCitation', () => {
  it.each([
    ['another annotation type', { ...CITATION, type: 'url_citation' }],
    ['no item', { ...CITATION, item_id: undefined }],
    ['an end before its start', { ...CITATION, start_index: 5, end_index: 4 }],
    ['a negative offset', { ...CITATION, start_index: -1 }],
    ['a fractional offset', { ...CITATION, end_index: 69.5 }],
    ['an end past the text', { ...CITATION, end_index: 72 }],
    ['a moment ending before it starts', { ...CITATION, start_sec: 9, end_sec: 2 }],
    ['seconds as text', { ...CITATION, start_sec: '0' }],
    ['not an object', 'video_citation'],
  ])('drops %s', (_name, raw) => {
    expect(readCitation(raw, TEXT)).toBeUndefined();
  });

  it('reads code-point offsets, end inclusive, as JS offsets, end exclusive', () => {
    const text = '🌍 planet [1] 🌱 [2]';
    const at = (first: number, last: number) => readCitation({ ...CITATION, start_index: first, end_index: last }, text);
    expect(text.slice(at(9, 11)!.startIndex, at(9, 11)!.endIndex)).toBe('[1]');
    expect(text.slice(at(15, 17)!.startIndex, at(15, 17)!.endIndex)).toBe('[2]');
    expect(at(0, 0)).toMatchObject({ startIndex: 0, endIndex: 2 });
    expect(at(15, 18)).toBeUndefined();
  });

  it('reads an image citation: the whole item, no moment, no stream', () => {
    expect(
      readCitation({ type: 'image_citation', start_index: 68, end_index: 70, item_id: 'ksi_2', title: 'photo.png', hls_url: 'x' }, TEXT),
    ).toEqual({
      kind: 'image',
      startIndex: 68,
      endIndex: 71,
      itemId: 'ksi_2',
      startSec: 0,
      endSec: 0,
      title: 'photo.png',
      thumbnailUrl: undefined,
      hlsUrl: undefined,
    });
  });

  it('names an untitled moment by its item', () => {
    expect(readCitation({ ...CITATION, title: '' }, TEXT)?.title).toBe('ksi_1');
  });
});

describe('utf16Offset', () => {
  it.each([
    ['abc', 0, 0],
    ['abc', 3, 3],
    ['abc', 4, undefined],
    ['🌍a', 1, 2],
    ['🌍a', 2, 3],
    ['a🌍🌍', 3, 5],
  ])('%j, code point %i', (text, point, expected) => {
    expect(utf16Offset(text, point)).toBe(expected);
  });
});

describe('answerParts', () => {
  it('keeps the final answer and drops citations past the end of its text', () => {
    const response = {
      output: [
        { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'Searching…' }] },
        { type: 'function_call', name: 'search' },
        {
          type: 'message',
          role: 'assistant',
          phase: 'final_answer',
          content: [{ type: 'output_text', text: 'abc', annotations: [{ ...CITATION, start_index: 0, end_index: 2 }, CITATION] }],
        },
      ],
    };
    expect(answerParts(response)).toEqual([{ text: 'abc', citations: [expect.objectContaining({ startIndex: 0, endIndex: 3 })] }]);
  });

  it('reads every assistant message when none says its phase, and nothing from a malformed response', () => {
    const response = {
      output: [
        { type: 'message', content: [{ type: 'output_text', text: 'one' }] },
        { type: 'message', role: 'user', content: [{ type: 'output_text', text: 'not the answer' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'refusal' }, { type: 'output_text', text: 'two' }] },
      ],
    };
    expect(answerParts(response).map((part) => part.text)).toEqual(['one', 'two']);
    expect(answerParts({ output: 'nope' })).toEqual([]);
    expect(answerParts(null)).toEqual([]);
  });
});

describe('answerSegments', () => {
  const render = (text: string, citations: Citation[]) =>
    answerSegments({ text, citations })
      .map((s) => (s.kind === 'text' ? s.text : `<${s.n}>`))
      .join('');

  it.each([
    ['no citation', 'Plain.', [], 'Plain.'],
    ['a written marker, replaced', 'The planet [1].', [citation(11, 14)], 'The planet <1>.'],
    [
      'a cited sentence, marked at its end',
      'A planet. A garden.',
      [citation(0, 9), citation(10, 19, 'ksi_2')],
      'A planet.<1> A garden.<2>',
    ],
    ['the same moment twice: one number', 'A. B.', [citation(0, 2), citation(3, 5)], 'A.<1> B.<1>'],
    ['two moments for one span', 'A planet.', [citation(0, 9), citation(0, 9, 'ksi_2')], 'A planet.<1><2>'],
    ['overlapping spans', 'A planet and a garden.', [citation(0, 14), citation(2, 22, 'ksi_2')], 'A planet and a<1> garden.<2>'],
    ['out of order', 'B [2] A [1]', [citation(8, 11), citation(2, 5, 'ksi_2')], 'B <1> A <2>'],
    ['text with astral characters (UTF-16 offsets)', '🌍 planet [1]', [citation(10, 13)], '🌍 planet <1>'],
  ])('%s', (_name, text, citations, expected) => {
    expect(render(text, citations)).toBe(expected);
  });

  it('numbers the sources in the order the text cites them', () => {
    const part = { text: 'B [2] A [1] B again [3]', citations: [citation(8, 11), citation(2, 5, 'ksi_2'), citation(20, 23, 'ksi_2')] };
    expect(citedMoments(part).map(({ n, citation: c }) => [n, c.itemId])).toEqual([
      [1, 'ksi_2'],
      [2, 'ksi_1'],
    ]);
  });
});

describe('responseRequest', () => {
  it('asks a new question, then continues its session', () => {
    expect(responseRequest('ks_1', 'What is shown?', undefined)).toEqual({
      knowledge_store_id: 'ks_1',
      input: [{ type: 'message', role: 'user', content: 'What is shown?' }],
      stream: true,
    });
    expect(responseRequest('ks_1', 'And then?', 'sess_1')).toMatchObject({ session_id: 'sess_1' });
  });
});

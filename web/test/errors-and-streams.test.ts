import { ApiFailure, describeError, errorFromBody } from '../src/lib/errors';
import { NdjsonLines, readStreamEvent } from '../src/lib/ndjson';

describe('errorFromBody: the API words the error', () => {
  it.each([
    [
      '{code, message}',
      401,
      '{"code":"api_key_invalid","message":"The API key is invalid."}',
      { code: 'api_key_invalid', message: 'The API key is invalid.' },
    ],
    [
      "embed-v2's {error: {code, message}}",
      400,
      '{"error":{"code":"parameter_invalid","message":"input_type is wrong."}}',
      { code: 'parameter_invalid', message: 'input_type is wrong.' },
    ],
    [
      "v1's {error_code, message}",
      404,
      '{"error_code":"resource_not_exist","message":"No such index."}',
      { code: 'resource_not_exist', message: 'No such index.' },
    ],
    ['an HTML page', 502, '<html>Bad gateway</html>', { code: 'http_502', message: 'The server answered 502 without an error message.' }],
    ['an empty body', 500, '', { code: 'http_500', message: 'The server answered 500 without an error message.' }],
    ['a code without a message', 400, '{"code":"x"}', { code: 'http_400', message: 'The server answered 400 without an error message.' }],
  ])('%s', (_name, status, text, expected) => {
    expect(errorFromBody(status, text)).toEqual({ status, ...expected });
  });

  it('describes a failure with its code, and anything else by its message', () => {
    expect(describeError(new ApiFailure({ status: 429, code: 'too_many_requests', message: 'Slow down.' }))).toBe(
      'Slow down. (too_many_requests)',
    );
    expect(describeError(new TypeError('Failed to fetch'))).toBe('Failed to fetch');
  });
});

describe('NdjsonLines', () => {
  it('gives whole lines only, whatever the chunking', () => {
    const wire =
      '{"event_type":"stream_start"}\n{"event_type":"text_generation","text":"Hel"}\n\n{"event_type":"text_generation","text":"lo"}\n{"event_type":"stream_end","finish_reason":"stop"}';
    for (const size of [1, 3, 7, wire.length]) {
      const lines = new NdjsonLines();
      const events: unknown[] = [];
      for (let i = 0; i < wire.length; i += size) events.push(...lines.push(wire.slice(i, i + size)));
      events.push(...lines.end());
      expect(events.map(readStreamEvent)).toEqual([
        { kind: 'other' },
        { kind: 'text', text: 'Hel' },
        { kind: 'text', text: 'lo' },
        { kind: 'end', finishReason: 'stop' },
      ]);
    }
  });

  it('reads a stream error with its message', () => {
    expect(readStreamEvent({ event_type: 'stream_error', error: { message: 'The model stopped.' } })).toEqual({
      kind: 'error',
      message: 'The model stopped.',
    });
    expect(readStreamEvent({ event_type: 'stream_error' })).toEqual({ kind: 'error', message: 'The stream ended with an error.' });
  });

  it('throws on a line that is not JSON rather than dropping it', () => {
    expect(() => new NdjsonLines().push('not json\n')).toThrow(SyntaxError);
  });
});

import { isApiError } from '@vus/core';
import { detectTranscriptFormat, parseTimestamp, parseTranscript, type TranscriptCue } from '../src';

const SRT = `1
00:00:01,000 --> 00:00:04,500
Hello there.

2
00:00:05,000 --> 00:00:07,250
General Kenobi!
You are a bold one.
`;

const VTT = `WEBVTT - a title
Kind: captions

NOTE this is a comment
spanning two lines

intro
00:01.000 --> 00:04.500 align:start position:10%
<v Obi-Wan>Hello there.</v>

00:00:05.000 --> 00:00:07.250
<c.yellow>General</c> Kenobi &amp; co &lt;3
`;

describe('parseTimestamp', () => {
  it.each([
    ['00:00:01,000', 1],
    ['00:00:01.5', 1.5],
    ['01:02:03,004', 3723.004],
    ['02:03.040', 123.04],
    ['1:00:00.000', 3600],
    ['00:61:00,000', undefined],
    ['00:00:01', undefined],
    ['abc', undefined],
  ])('%s → %p', (input, seconds) => {
    expect(parseTimestamp(input)).toBe(seconds);
  });
});

describe('detectTranscriptFormat', () => {
  it.each([
    ['subrip', SRT, 'srt'],
    ['webvtt', VTT, 'vtt'],
    ['webvtt after a byte-order mark', '\uFEFFWEBVTT\n\n00:01.000 --> 00:02.000\nhi', 'vtt'],
    ['prose', 'Just some words.\nAnd more.', 'text'],
    ['a look-alike header', 'WEBVTTX is not a header\n', 'text'],
  ])('%s → %s', (_name, input, format) => {
    expect(detectTranscriptFormat(input)).toBe(format);
  });
});

describe('parseTranscript', () => {
  const both: TranscriptCue[] = [
    { start: 1, end: 4.5, text: 'Hello there.' },
    { start: 5, end: 7.25, text: 'General Kenobi!' + ' You are a bold one.' },
  ];

  it.each<[string, string, TranscriptCue[]]>([
    ['srt', SRT, both],
    ['srt with CRLF and BOM', `\uFEFF${SRT.replace(/\n/g, '\r\n')}`, both],
    [
      'srt without counters, unordered',
      '00:00:05,000 --> 00:00:06,000\nB\n\n00:00:01,000 --> 00:00:02,000\nA\n',
      [
        { start: 1, end: 2, text: 'A' },
        { start: 5, end: 6, text: 'B' },
      ],
    ],
    [
      'srt cue without text is skipped',
      '1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:03,000 --> 00:00:04,000\nX\n',
      [{ start: 3, end: 4, text: 'X' }],
    ],
    [
      'vtt',
      VTT,
      [
        { start: 1, end: 4.5, text: 'Hello there.' },
        { start: 5, end: 7.25, text: 'General Kenobi & co <3' },
      ],
    ],
  ])('%s', (_name, input, cues) => {
    expect(parseTranscript(input)).toEqual(cues);
  });

  it('spreads plain text over the duration in proportion to sentence length', () => {
    const cues = parseTranscript('One two three. Four five six!\n\nSeven eight nine', { duration: 9 });
    expect(cues.map((c) => c.text)).toEqual(['One two three.', 'Four five six!', 'Seven eight nine']);
    expect(cues[0]!.start).toBe(0);
    expect(cues.at(-1)!.end).toBe(9);
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.start).toBe(cues[i - 1]!.end);
  });

  it.each<[string, string, { format?: 'srt' | 'vtt' | 'text'; duration?: number }, RegExp]>([
    ['bad time range', '1\n00:00:01,000 -> 00:00:02,000\nhi\n', { format: 'srt' }, /Line 2: expected a time range/],
    ['bad timestamp', '1\n00:00:01,000 --> 00:00:xx,000\nhi\n', {}, /Line 2: .* is not a valid time range/],
    ['end before start', '\n\n1\n00:00:05,000 --> 00:00:02,000\nhi\n', {}, /Line 4: the cue ends \(2s\) before it starts \(5s\)/],
    ['empty srt', '', { format: 'srt' }, /no cues were found/],
    ['vtt without header', '00:01.000 --> 00:02.000\nhi\n', { format: 'vtt' }, /must start with "WEBVTT"/],
    [
      'vtt with a broken cue',
      'WEBVTT\n\n00:01.000 --> 00:02.000\nhi\n\nid\n00:03 --> 00:04\nho\n',
      {},
      /Line 7: "00:03 --> 00:04" is not a valid time range/,
    ],
    ['plain text without duration', 'hello', {}, /duration is needed/],
    ['blank plain text', '  \n\n ', { format: 'text', duration: 10 }, /has no text/],
  ])('rejects %s', (_name, input, options, message) => {
    try {
      parseTranscript(input, options);
      throw new Error('expected an error');
    } catch (error) {
      expect(isApiError(error) && error.code).toBe('parameter_invalid');
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain('transcription_file');
    }
  });
});

import type { IndexedAsset } from '@vus/grpc/types/task/v1/IndexedAsset';
import { presentTranscription, transcriptionSource } from '../src/presenters/asset-transcription';

const item = (id: string, status: string, failure?: string) =>
  ({ id, status, ...(failure ? { failure: { code: 'x', message: failure } } : {}) }) as IndexedAsset;

describe('GET /assets/{id}/transcription: which indexed asset answers (issue 32 §3)', () => {
  it.each<[string, IndexedAsset[], unknown]>([
    ['never indexed', [], { status: 'none' }],
    [
      'the newest ready one answers, whatever else runs',
      [item('a', 'indexing'), item('b', 'ready'), item('c', 'ready')],
      { status: 'ready', indexedAsset: item('b', 'ready') },
    ],
    ['being indexed', [item('a', 'queued'), item('b', 'indexing')], { status: 'processing' }],
    ['waiting', [item('a', 'pending'), item('b', 'failed', 'broken')], { status: 'pending' }],
    [
      'only failures',
      [item('a', 'failed', 'The video file is broken.'), item('b', 'failed')],
      { status: 'failed', message: 'The video file is broken.' },
    ],
    [
      'a failure without a message',
      [item('a', 'failed')],
      { status: 'failed', message: 'Indexing the asset failed, so it was not transcribed.' },
    ],
  ])('%s', (_name, indexed, expected) => {
    expect(transcriptionSource(indexed)).toEqual(expected);
  });
});

describe('presentTranscription', () => {
  const segments = [
    { start: 0.5, end: 3, value: ' The first sentence. ' },
    { start: 3, end: 3.2, value: '  ' },
    { start: 3.5, end: 6, value: 'The second.' },
  ];
  it('answers the segments as sentences when asked, leaving out what is not kept (words, utterances)', () => {
    expect(presentTranscription(segments, ['words', 'sentences', 'utterances'])).toEqual({
      status: 'ready',
      sentences: [
        { start: 0.5, end: 3, value: 'The first sentence.' },
        { start: 3.5, end: 6, value: 'The second.' },
      ],
    });
  });
  it('answers only the status for words alone (the default)', () => {
    expect(presentTranscription(segments, ['words'])).toEqual({ status: 'ready' });
  });
});

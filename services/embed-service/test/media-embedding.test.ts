import type { ConceptBag } from '@vus/models';
import { embedClips, rangeProblem, type RangeEvidence } from '../src/media-embedding';
import { SYNC_VIDEO_LIMIT } from '../src/sync-video';
import { embeddingTypes, taskEmbeddingOptions } from '../src/tasks';

// Concepts are words; a "vector" lists a bag's words (sorted), so each clip shows what went into it.
const bag = (...words: string[]): ConceptBag => new Map(words.map((w) => [`word:${w}`, 1]));
const concepts = { text: (text: string) => bag(...text.split(/\s+/).filter(Boolean)) };
const named = (segments: ReturnType<typeof embedClips>, words: string[]) =>
  segments.map((s) => [s.option, s.scope, s.start, s.end, words.filter((_, i) => s.vector[i] !== 0).join(' ')]);

describe('embedClips', () => {
  const words = ['cat', 'car', 'fish', 'space', 'sound', 'silence'];
  const embed = (b: ConceptBag) => Float32Array.from(words.map((w) => b.get(`word:${w}`) ?? 0));
  const evidence: RangeEvidence = {
    frames: [
      { time: 1, bag: bag('cat') },
      { time: 7, bag: bag('car') },
    ],
    speech: [
      { start: 2, end: 4, text: 'fish' },
      { start: 9, end: 11, text: 'space' },
    ],
    sounds: [bag('sound'), bag('silence')],
  };

  it('embeds each option per clip, and the whole range when asked, from the evidence of each window', () => {
    const segments = embedClips(
      evidence,
      { start: 0, end: 12 },
      { embeddingOptions: ['visual', 'audio', 'transcription'], scopes: ['clip', 'video'], clipLength: 6 },
      concepts,
      embed,
    );
    expect(named(segments, words)).toEqual([
      ['visual', 'clip', 0, 6, 'cat'],
      ['visual', 'clip', 6, 12, 'car'],
      ['visual', 'video', 0, 12, 'cat car'],
      ['audio', 'clip', 0, 6, 'fish sound'],
      ['audio', 'clip', 6, 12, 'space silence'],
      ['audio', 'video', 0, 12, 'fish space sound silence'],
      ['transcription', 'clip', 0, 6, 'fish'],
      ['transcription', 'clip', 6, 12, 'space'],
      ['transcription', 'video', 0, 12, 'fish space'],
    ]);
  });

  it('fuses every option of a clip into one vector when asked, beside or instead of the separate ones', () => {
    const fused = (types: ('separate' | 'fused')[]) =>
      named(
        embedClips(
          evidence,
          { start: 0, end: 12 },
          { embeddingOptions: ['visual', 'transcription'], embeddingTypes: types, scopes: ['clip'], clipLength: 6 },
          concepts,
          embed,
        ),
        words,
      );
    expect(fused(['fused'])).toEqual([
      ['fused', 'clip', 0, 6, 'cat fish'],
      ['fused', 'clip', 6, 12, 'car space'],
    ]);
    expect(fused(['separate', 'fused']).map((s) => s[0])).toEqual(['visual', 'visual', 'transcription', 'transcription', 'fused', 'fused']);
  });

  it('gives a clip with no frame inside the nearest frame', () => {
    const segments = embedClips(
      { ...evidence, frames: [{ time: 1, bag: bag('cat') }] },
      { start: 0, end: 12 },
      { embeddingOptions: ['visual'], scopes: ['clip'], clipLength: 6 },
      concepts,
      embed,
    );
    expect(named(segments, words).map((s) => s[4])).toEqual(['cat', 'cat']);
  });
});

describe('taskEmbeddingOptions', () => {
  it.each([
    ['video', [], ['visual', 'audio']],
    ['audio', [], ['audio']],
    ['video', ['visual-text', 'visual', 'audio'], ['visual', 'audio']],
    ['audio', ['transcription'], ['transcription']],
  ] as const)('%s %j → %j', (input, asked, options) => {
    expect(taskEmbeddingOptions(input, asked)).toEqual(options);
  });

  it.each([
    ['audio', ['visual']],
    ['video', ['fused']],
  ] as const)('%s %j is parameter_invalid', (input, asked) => {
    expect(() => taskEmbeddingOptions(input, asked)).toThrow(expect.objectContaining({ code: 'parameter_invalid' }));
  });
});

describe('rangeProblem: the message a task fails with', () => {
  it.each([
    [60, { startSec: 0 }, undefined],
    [60, { startSec: 60 }, 'The start offset 60 s is at or past the end of the 60.0 s audio.'],
    [5 * 3600, { startSec: 0 }, 'The audio is 18000 s long; embed tasks take at most 14400 s.'],
  ])('%d s from %j', (duration, options, problem) => {
    expect(rangeProblem('audio', duration, options)?.message).toBe(problem);
  });
});

describe('rangeProblem with the synchronous limit: the range embedded counts, not the media', () => {
  it.each([
    [600, {}, undefined],
    [3600, { startSec: 60, endSec: 600 }, undefined],
    [601, {}, 'video_duration_too_long'],
    [3600, { startSec: 2999 }, 'video_duration_too_long'],
    [30, { startSec: 30 }, 'parameter_invalid'],
  ])('%d s from %j', (duration, options, code) => {
    expect(rangeProblem('video', duration, { startSec: 0, ...options }, SYNC_VIDEO_LIMIT)?.code).toBe(code);
  });

  it('says to use an embed task', () => {
    expect(rangeProblem('video', 601, { startSec: 0 }, SYNC_VIDEO_LIMIT)?.message).toBe(
      'The video is 601 s long; synchronous video embeddings take at most 600 s. Use an embed task (POST /embed-v2/tasks) for longer video.',
    );
  });
});

describe('embeddingTypes', () => {
  it.each([
    [[], ['separate']],
    [['fused_embedding'], ['fused']],
    [
      ['separate_embedding', 'fused_embedding', 'fused_embedding'],
      ['separate', 'fused'],
    ],
  ])('%j → %j', (asked, types) => {
    expect(embeddingTypes(asked)).toEqual(types);
  });

  it('refuses an unknown type', () => {
    expect(() => embeddingTypes(['fused'])).toThrow(expect.objectContaining({ code: 'parameter_invalid' }));
  });
});

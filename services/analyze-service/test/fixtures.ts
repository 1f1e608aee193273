import { assembleTimeline, type EvidenceSources, type Timeline } from '../src/evidence';

/**
 * A 40-second cooking video as indexing would report it: a title card, a recipe said aloud,
 * what the detector saw in three shots, a logo and user metadata.
 */
export function cookingSources(overrides: Partial<EvidenceSources> = {}): EvidenceSources {
  return {
    video: { id: 'v1', indexId: 'i1', title: '', filename: 'pasta_night.mp4', duration: 40, userMetadata: { category: 'recipes' } },
    transcription: [
      { start: 1, end: 4, value: 'Welcome to my kitchen.' },
      { start: 5, end: 9, value: 'Today we cook fresh tomato pasta.' },
      { start: 21, end: 25, value: 'Boil the pasta for ten minutes.' },
      { start: 31, end: 35, value: 'Add the tomato sauce and serve the pasta.' },
    ],
    textInVideo: [
      { start: 0, end: 1, value: 'TOMATO PASTA' },
      { start: 1, end: 2, value: 'TOMATO PASTA' },
      { start: 2, end: 3, value: 'TOMATO PASTA' },
      { start: 22, end: 24, value: 'Step 2: boil' },
    ],
    logos: [{ start: 30, end: 32, value: 'Acme' }],
    visualSegments: [
      { start: 0, end: 10, labels: ['person', 'bowl'] },
      { start: 10, end: 20, labels: ['person', 'bowl'] },
      { start: 20, end: 30, labels: ['pot', 'oven'] },
      { start: 30, end: 40, labels: ['person', 'plate'] },
    ],
    ...overrides,
  };
}

export function cookingTimeline(overrides: Partial<EvidenceSources> = {}): Timeline {
  return assembleTimeline(cookingSources(overrides));
}

/** Every word of a generated text that the fixture's evidence (or plain sentence glue) does not hold. */
export function inventedWords(text: string, timeline: Timeline, glue: readonly string[]): string[] {
  const allowed = new Set([
    ...timeline.items.flatMap((e) => e.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []),
    ...timeline.title.toLowerCase().split(/\s+/),
    ...glue,
  ]);
  return (text.toLowerCase().match(/[\p{L}]+/gu) ?? []).filter((w) => !allowed.has(w));
}

/** The words the extractive provider writes around evidence. */
export const SENTENCE_GLUE = [
  'at',
  'from',
  'to',
  'the',
  'speaker',
  'says',
  'on',
  'screen',
  'text',
  'reads',
  'logo',
  'is',
  'visible',
  'video',
  'shows',
  'and',
  's',
  'metadata',
  'gives',
  'does',
  'not',
  'show',
  'or',
  'mention',
  'nothing',
  'was',
  'detected',
  'part',
];

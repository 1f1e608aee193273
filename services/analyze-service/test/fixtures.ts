import type { IndexClient, SearchClient } from '@vus/clients';
import { newId } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { Segment__Input } from '@vus/grpc/types/search/v1/Segment';
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

/**
 * A 30-second garden tour as the worker would have indexed it, written straight into index-service
 * and search-service: words on screen, two lines said, two shots (`extraSegments` adds search segments).
 */
export async function addGardenTourVideo(
  clients: { index: IndexClient; search: SearchClient },
  ctx: OutgoingContext,
  indexId: string,
  extraSegments: Segment__Input[] = [],
): Promise<string> {
  const id = newId();
  await clients.index.createVideo(ctx, {
    index_id: indexId,
    video_id: id,
    system_metadata: { filename: 'garden_tour.mp4', duration: 30, fps: 25, width: 1280, height: 720, size: 1000 },
    extractors_run: ['visual', 'conversation', 'text_in_video', 'logo'],
    media_blob_key: '',
  });
  await clients.index.putVideoArtifacts(ctx, {
    index_id: indexId,
    video_id: id,
    artifacts: {
      transcription: [
        { start: 2, end: 5, value: 'These roses bloom in June.' },
        { start: 16, end: 20, value: 'The bicycle is parked by the gate.' },
      ],
      text_in_video: [{ start: 0, end: 4, value: 'GARDEN TOUR' }],
      logo: [],
      thumbnails: [],
    },
  });
  await clients.search.ingestSegments(ctx, {
    index_id: indexId,
    video_id: id,
    segments: [
      { start: 0, end: 15, modality: 'visual', labels: ['potted plant', 'person'] },
      { start: 15, end: 30, modality: 'visual', labels: ['bicycle'] },
      ...extraSegments,
    ],
  });
  return id;
}

/**
 * Two indexes with a garden-tour video each: one that generates (Pegasus beside Marengo) and one for
 * search only (Marengo alone), whose videos text generation refuses.
 */
export async function addGardenTourIndexes(
  clients: { index: IndexClient; search: SearchClient },
  ctx: OutgoingContext,
  extraSegments: Segment__Input[] = [],
): Promise<{ videoId: string; searchOnlyVideoId: string }> {
  const allOptions = ['visual', 'conversation', 'text_in_video', 'logo'];
  const generative = await clients.index.createIndex(ctx, {
    name: 'gen',
    models: [
      { name: 'marengo2.7', options: allOptions },
      { name: 'pegasus1.2', options: ['visual', 'conversation'] },
    ],
    addons: [],
  });
  const searchOnly = await clients.index.createIndex(ctx, {
    name: 'search only',
    models: [{ name: 'marengo2.7', options: allOptions }],
    addons: [],
  });
  return {
    videoId: await addGardenTourVideo(clients, ctx, generative.id, extraSegments),
    searchOnlyVideoId: await addGardenTourVideo(clients, ctx, searchOnly.id, extraSegments),
  };
}

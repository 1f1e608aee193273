/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * The official 1.x SDK's own search example (twelvelabs-js examples/search.ts, from the npm
 * tarball) runs as written against a fresh index holding the example's own footage, indexed by the
 * real worker with everything a v1.3 index sees: frames (detector, OCR, the bundled concept
 * embedding from embed-service) and speech (the bundled PocketSphinx). Each of its five searches
 * must print clips: grouped, ungrouped, semantic transcription, by image (its search_sample.png, a
 * frame of the footage) and text + image (where both hold). The footage is the first 60 s of assets/example.mp4 —
 * a news anchor, the derailment seen from the air, a correspondent — since frame analysis of all
 * 160 s costs minutes more on two cores and adds no query the example asks.
 * On a machine without PocketSphinx the suite is one skipped test that names it.
 */
import { missingPocketSphinx, POCKETSPHINX_DEFAULTS } from '@vus/models';
import { speechFixture, speechFixtureExcerpt } from '@vus/testing';
import { createReadStream } from 'node:fs';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { pointSdkExamplesAt, printedUnder, runSdkExample } from './sdk-examples';

const EXCERPT_SEC = 60;
const missing = missingPocketSphinx(POCKETSPHINX_DEFAULTS);

/** A printed clip line of the example: `  [videoId=… ]rank=… start=… end=…[ transcription=…]`. */
interface PrintedClip {
  videoId: string | undefined;
  rank: number;
  start: number;
  end: number;
  transcription: string | undefined;
}

function parseClip(line: string): PrintedClip {
  const field = (name: string) => new RegExp(`\\b${name}=(\\S+)`).exec(line)?.[1];
  return {
    videoId: field('videoId'),
    rank: Number(field('rank')),
    start: Number(field('start')),
    end: Number(field('end')),
    transcription: /\btranscription=(.*)$/.exec(line)?.[1],
  };
}

/** Clips are moments of the footage, ranked from 1, each with a real start and end. */
function expectMoments(clips: readonly PrintedClip[], videoId: string): void {
  expect(clips.length).toBeGreaterThan(0);
  expect(clips.map((clip) => clip.rank)).toEqual(clips.map((_, i) => i + 1));
  for (const clip of clips) {
    if (clip.videoId !== undefined) expect(clip.videoId).toBe(videoId);
    expect(clip.start).toBeGreaterThanOrEqual(0);
    expect(clip.end).toBeGreaterThan(clip.start);
    expect(clip.end).toBeLessThanOrEqual(EXCERPT_SEC + 0.5);
  }
}

if (missing) {
  it.skip(`the SDK's search example: skipped, ${missing}`, () => undefined);
} else {
  describe("twelvelabs-js 1.x's own examples/search.ts, as written, on the example's footage", () => {
    let stack: IndexingStack;
    let videoId: string;
    let printed: string[];
    let restoreEnvironment: (() => void) | undefined;

    beforeAll(async () => {
      let footage: string;
      [stack, footage] = await Promise.all([
        startIndexingStack({ worker: true, embed: true, database: 'pglite', pocketsphinx: POCKETSPHINX_DEFAULTS }),
        speechFixtureExcerpt(speechFixture('twelvelabs-example'), EXCERPT_SEC),
      ]);
      const { key } = await stack.newOrg();
      restoreEnvironment = pointSdkExamplesAt(stack.url, key);
      const client = new TwelveLabs({ apiKey: key });
      const index = await client.indexes.create({
        indexName: 'search example',
        models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
      });
      const created = await client.tasks.create({ indexId: index.id!, videoFile: createReadStream(footage) });
      const done = await client.tasks.waitForDone(created.id!, { sleepInterval: 1 });
      expect(done.status).toBe('ready');
      videoId = created.videoId!;
      printed = await runSdkExample('search.ts', [['<YOUR_INDEX_ID>', index.id!]]);
    }, 1_200_000);

    afterAll(async () => {
      restoreEnvironment?.();
      await stack?.stop();
    });

    it('"A man talking", grouped by video: the one video, with a few moments rather than one-second slices', () => {
      const lines = printedUnder(printed, 'Search (group by video): ');
      expect(lines[0]).toBe(`  videoId=${videoId}`);
      const clips = lines.slice(1).map(parseClip);
      expectMoments(clips, videoId);
      expect(clips.length).toBeLessThan(EXCERPT_SEC / 4);
      expect(clips.some((clip) => clip.end - clip.start > 1)).toBe(true);
    });

    it('"A man talking", ungrouped: the same clips as the grouped view', () => {
      const grouped = printedUnder(printed, 'Search (group by video): ').slice(1).map(parseClip);
      const clips = printedUnder(printed, 'Search (no grouping): ').map(parseClip);
      expectMoments(clips, videoId);
      const span = ({ start, end }: PrintedClip) => `${start}-${end}`;
      expect(clips.map(span).sort()).toEqual(grouped.map(span).sort());
    });

    it('"couple of chemicals", semantic transcription: the speech about the chemicals, with its words', () => {
      const clips = printedUnder(printed, 'Search (semantic transcription only): ').map(parseClip);
      expectMoments(clips, videoId);
      expect(clips.every((clip) => clip.transcription && clip.transcription !== 'undefined')).toBe(true);
    });

    it('by image (the derailment seen from the air): clips of that footage first', () => {
      const clips = printedUnder(printed, 'Search by image: ').map(parseClip);
      expectMoments(clips, videoId);
      // The aerial shots of the burning train run from about 10 s to 25 s, and again beside the correspondent from 45 s.
      const top = clips[0]!;
      expect(top.start < 25 && top.end > 10).toBe(true);
    });

    it('text and image composed: clips where both hold, within the footage the image matches', () => {
      const clips = printedUnder(printed, 'Composed text and image search: ').map(parseClip);
      expectMoments(clips, videoId);
      // The aerial shots (about 10–25 s) and the correspondent beside them (from about 45 s).
      for (const clip of clips) expect((clip.start >= 9 && clip.end <= 26) || clip.start >= 44).toBe(true);
    });
  });
}

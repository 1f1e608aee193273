/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 *
 * The official 1.x SDK's own embeddings examples (twelvelabs-js examples/embed.ts and
 * examples/embed_legacy.ts, from the npm tarball) run against the stack as written: their
 * TwelveLabs client from API_KEY and TWELVELABS_BASE_URL, their own assets, their 5 s polling.
 * Only their remote URLs are the same files served locally (tests never reach the network), and
 * the example's promise is kept so the test knows when it is done. The video is the first 30 s of
 * the example's own footage where the examples name a URL (embed.ts's sync and task embeddings): all
 * 160 s, embedded three times over, took five minutes of a CI run and showed nothing 30 s does not.
 * embed_legacy.ts uploads the whole file from its assets folder, as written.
 */
import { probe } from '@vus/media';
import { serveFiles, speechFixture, speechFixtureExcerpt, type FileServer } from '@vus/testing';
import { join } from 'node:path';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { pointSdkExamplesAt, runSdkExample, SDK_EXAMPLES_DIR } from './sdk-examples';

/** The remote media of the examples, and the example asset served in its place. */
const REMOTE_MEDIA: readonly [string, string][] = [
  ['https://www.gstatic.com/webp/gallery/1.jpg', 'search_sample.png'],
  ['http://commondatastorage.googleapis.com/gtv-videos-bucket/sample/BigBuckBunny.mp4', 'example.mp4'],
  ['https://github.com/twelvelabs-io/twelvelabs-python/raw/refs/heads/main/examples/assets/audio_sample.mp3', 'audio_sample.mp3'],
];
const VIDEO_SEC = 30;
/** The examples' clip length (the API's default video_clip_length). */
const CLIP_SEC = 6;

/** Runs an example with its remote media served locally, and returns what it printed. */
const runExample = (file: string, files: FileServer) =>
  runSdkExample(
    file,
    REMOTE_MEDIA.map(([remote, local]) => [remote, files.url(local)]),
  );

/** The embeddings lines the examples print: `Embedding: [a, b, …...] (total: n values)` and `  embeddings: […]`. */
const vectorsIn = (lines: readonly string[]) =>
  lines.filter((line) => /^\s*(Embedding|embeddings): \[-?\d/.test(line)).map((line) => Number(/total: (\d+) values/.exec(line)?.[1]));

describe("twelvelabs-js 1.x's own embeddings examples, as written, on local media", () => {
  let stack: IndexingStack;
  let files: FileServer;
  let restoreEnvironment: (() => void) | undefined;
  /** Clips per option of the served video and of the whole example file. */
  let clips: number;
  let wholeFileClips: number;

  beforeAll(async () => {
    let video: string;
    [stack, video] = await Promise.all([
      startIndexingStack({ embed: true, database: 'pglite' }),
      speechFixtureExcerpt(speechFixture('twelvelabs-example'), VIDEO_SEC),
    ]);
    const clipsOf = async (file: string) => Math.ceil((await probe(file)).durationSec / CLIP_SEC);
    [clips, wholeFileClips] = await Promise.all([clipsOf(video), clipsOf(join(SDK_EXAMPLES_DIR, 'assets', 'example.mp4'))]);
    const local = (name: string) => (name === 'example.mp4' ? video : join(SDK_EXAMPLES_DIR, 'assets', name));
    files = await serveFiles(Object.fromEntries(REMOTE_MEDIA.map(([, name]) => [name, local(name)])));
    restoreEnvironment = pointSdkExamplesAt(stack.url, (await stack.newOrg()).key);
  }, 120_000);

  afterAll(async () => {
    restoreEnvironment?.();
    await files?.close();
    await stack?.stop();
  });

  it('examples/embed.ts: text, image (URL, base64), audio, video (sync), then video and audio tasks until ready', async () => {
    const printed = await runExample('embed.ts', files);
    const after = (title: string) => printed.slice(printed.indexOf(title) + 1);
    for (const title of ['Created text embedding', 'Created image embedding', 'Created audio embedding', 'Created video embedding'])
      expect(vectorsIn(after(title))[0]).toBe(512);
    // The example video: clips of 6 s and the whole video, as seen and as heard.
    const video = after('Created video embedding');
    expect(
      video.slice(
        0,
        video.findIndex((line) => line.startsWith('Created video embedding task')),
      ),
    ).toEqual(
      expect.arrayContaining(['Embedding option: visual', 'Embedding option: audio', 'Embedding scope: clip', 'Embedding scope: asset']),
    );
    expect(printed).toEqual(expect.arrayContaining(['Video embedding done: ready', 'Audio embedding done: ready']));
    expect(vectorsIn(after('Video embedding done: ready')).length).toBeGreaterThan(2 * clips);
    expect(vectorsIn(after('Audio embedding done: ready')).length).toBeGreaterThan(1);
  }, 1_800_000);

  it('examples/embed_legacy.ts: text, image file, audio file, then a video task until ready and its visual-text and audio clips', async () => {
    const printed = await runExample('embed_legacy.ts', files);
    const after = (title: string) => printed.slice(printed.indexOf(title) + 1);
    for (const title of ['Created text embedding', 'Created image embedding', 'Created audio embedding'])
      expect(vectorsIn(after(title))[0]).toBe(512);
    expect(printed).toContain('Embedding done: ready');
    expect(vectorsIn(after('Embedding done: ready')).length).toBe(2 * wholeFileClips);
  }, 1_800_000);
});

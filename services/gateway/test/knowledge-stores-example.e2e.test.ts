/*
 * twelvelabs-js 1.3.4's own examples/knowledgeStores.ts (with its _ksHelpers.ts) against `npm start`
 * (issue 33 'Done when'), as written but for the SDK example suite's substitutions: the remote
 * sample-video URL its helpers name points at loopback (knowledgeStores.ts never fetches it), as does
 * the API address a comment of theirs names, and its assets/example.mp4 (160 s) is the first 40 s
 * of itself, which it indexes as well in a fraction of the time. Checks what it printed: every section, both items ready, and each search.
 * The example itself ran in 143 s here (2 cores, load average 17-20), most of it its own polling
 * (every 5 s for assets, 10 s for items) while the video is indexed.
 */
import { runFfmpeg } from '@vus/media';
import { serveFiles, startNpmStart, type FileServer, type NpmStart } from '@vus/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pointSdkExamplesAt, printedUnder, runSdkExample, sdkExamplesWithAssets } from './sdk-examples';

const REMOTE_VIDEO = 'http://commondatastorage.googleapis.com/gtv-videos-bucket/sample/BigBuckBunny.mp4';
const REMOTE_API = 'https://api.twelvelabs.io/v1.3';
const SDK_VIDEO = join(dirname(require.resolve('twelvelabs-js/package.json')), 'examples', 'assets', 'example.mp4');

let server: NpmStart;
let files: FileServer;
let restoreEnvironment: (() => void) | undefined;
const dir = mkdtempSync(join(tmpdir(), 'vus-knowledge-stores-example-'));
let printed: string[];

beforeAll(async () => {
  const cut = join(dir, 'example.mp4');
  [server] = await Promise.all([
    startNpmStart({ DATA_DIR: join(dir, 'data') }, 120_000),
    runFfmpeg(['-i', SDK_VIDEO, '-t', '40', '-c', 'copy', cut]),
  ]);
  files = await serveFiles({ 'BigBuckBunny.mp4': cut });
  restoreEnvironment = pointSdkExamplesAt(server.baseUrl, server.apiKey!);
  const replacements: [string, string][] = [
    [REMOTE_VIDEO, files.url('BigBuckBunny.mp4')],
    [REMOTE_API, `${server.baseUrl}/v1.3`],
  ];
  printed = await runSdkExample('knowledgeStores.ts', replacements, sdkExamplesWithAssets({ 'example.mp4': cut }));
}, 420_000);

afterAll(async () => {
  restoreEnvironment?.();
  await files?.close();
  expect(await server?.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

it('runs every section to the end: stores, items ready, collections, searches, clean-up', () => {
  for (const section of [
    '=== Ingestion config variants ===',
    '=== Knowledge store CRUD ===',
    '=== Items ===',
    '=== Item collections ===',
    '=== Search ===',
  ]) {
    expect(printed).toContain(`\n${section}`);
  }
  expect(printed.filter((line) => /^ {2}Item \w+ status=ready$/.test(line))).toHaveLength(2);
  expect(printedUnder(printed, '  filter items by status=ready:')[0]).toBe('    2 ready item(s)');
  expect(printed.at(-1)).toMatch(/^Deleted knowledge store \w+$/);
  expect(files.requests).toEqual([]);
});

it("prints each search's results: moments of the video, grouped under one item, and a second page by token", () => {
  const results = (label: string) => printed.find((line) => line.startsWith(`\n[${label}]`));
  const basic = printed.indexOf(printed.find((line) => line.startsWith('\n[basic (visual)]'))!);
  expect(basic).toBeGreaterThan(0);
  // The video's clips, visual: "video rank=1 item=… matches=1", then the clip's "a-bs modalities=["visual"]".
  expect(printed[basic + 1]).toMatch(/^ {2}video rank=1 item=\w+ matches=1$/);
  expect(printed[basic + 2]).toMatch(/^ {4}[\d.]+-[\d.]+s modalities=\["visual"\]$/);
  expect(results('groupBy=item')).toMatch(/1 result\(s\)/);
  for (const label of ['video-only + all modalities + metadata', 'pageSize=1']) expect(results(label)).toBeDefined();
  expect(printed.some((line) => line.startsWith('\n[itemId in ['))).toBe(true);
  expect(results('pageSize=1')).toMatch(/^\n\[pageSize=1\] 1 result\(s\); next_page_token=set$/);
  const second = printed.indexOf(results('page 2 (via nextPageToken)')!);
  expect(printed[second + 1]).toMatch(/^ {2}video rank=2 /);
});

/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * The playground page (web/) in a real browser against the whole indexing stack: Chromium from the
 * npm registry (@sparticuz/chromium ships the binary inside its package; CHROME_PATH overrides it)
 * driven by playwright-core. A user enters a key, creates an index, uploads a generated video,
 * watches it become ready, searches for a word shown in it, plays the result from its start and
 * asks for a summary. Each step leaves a screenshot in PLAYGROUND_SCREENSHOTS (default: a folder
 * under the OS temp dir, printed at the end).
 */
import { photoPath, serveFiles, wordsAndSubtitlesVideo, type FileServer, type GeneratedVideo } from '@vus/testing';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

const screenshots = process.env.PLAYGROUND_SCREENSHOTS ?? join(tmpdir(), 'vus-playground-screenshots');

/** Flags for a headless Chromium as root on a machine whose network is closed beyond loopback. */
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * @sparticuz/chromium's binary, unpacked (once) into the temp dir. The package is ESM only, which
 * jest's CommonJS sandbox cannot load: a plain node process asks it.
 */
async function npmChromiumPath(): Promise<string> {
  const script = "import('@sparticuz/chromium').then(async ({ default: c }) => process.stdout.write(await c.executablePath()))";
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { cwd: __dirname });
  return stdout.trim();
}

async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROME_PATH ?? (await npmChromiumPath());
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}

/*
 * Functions given to page.evaluate run in the browser (serialized: they may not use this file's
 * closures). The tests are compiled with Node's types only, so they reach the DOM as
 * `(globalThis as any)`.
 */

let stack: IndexingStack;
let fixture: GeneratedVideo;
/** The fixture again over loopback HTTP, for the upload by URL. */
let files: FileServer;
let key: string;
let browser: Browser;
let page: Page;
const shot = (name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
/** What the pages' Content-Security-Policy refused, as Chromium reports it on the console (issue 28 item 11). */
const refusedByPolicy: string[] = [];
/** Every URL the page requested, in order (the favicon's, the API calls a check must not have made). */
const requested: string[] = [];
/** The API calls made since `mark` (an index into `requested`) to a path containing `part`. */
const callsSince = (mark: number, part: string) => requested.slice(mark).filter((url) => url.includes(part));

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  [stack, fixture, browser] = await Promise.all([
    startIndexingStack({ worker: true, analyze: true, embed: true, classify: true }),
    wordsAndSubtitlesVideo(),
    launchChromium(),
  ]);
  ({ key } = await stack.newOrg());
  files = await serveFiles({ 'by-url.mp4': fixture.path });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (message) => {
    if (/Content Security Policy/.test(message.text())) refusedByPolicy.push(message.text());
  });
  page.on('request', (request) => void requested.push(request.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await files?.close();
  await stack?.stop();
  process.stdout.write(`playground screenshots: ${screenshots}\n`);
});

describe('the playground page', () => {
  it('is served at / without a key, and asks for one', async () => {
    const response = await page.goto(`${stack.url}/`);
    expect(response?.status()).toBe(200);
    await page.getByLabel('API key').waitFor();
    await expect(page.getByText('Paste an API key to start').isVisible()).resolves.toBe(true);
    // Its icon is in the page: the browser asks the server for no /favicon.ico (a 404 on every load).
    await page.waitForLoadState('load');
    expect(requested.filter((url) => new URL(url).pathname === '/favicon.ico')).toEqual([]);
    await expect(page.locator('link[rel="icon"]').getAttribute('href')).resolves.toMatch(/^data:image\/svg\+xml,/);
    await shot('1-key');
  });

  it('takes a key, shows the API error for a wrong one, and creates an index', async () => {
    await page.getByLabel('API key').fill('tlk_not-a-real-key-at-all');
    await page.getByRole('button', { name: 'Use key' }).click();
    // The API's own words (401 api_key_invalid), not a generic failure.
    await page.getByRole('alert').filter({ hasText: 'api_key_invalid' }).waitFor();
    // Checked before it is kept: nothing stored, and the page still asks for a key.
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('vus-playground-api-key'))).toBeNull();
    await expect(page.getByText('Paste an API key to start').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Forget' }).count()).resolves.toBe(0);

    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('button', { name: 'New index' }).click();
    // An empty name is answered on the page, in its words, and nothing is sent.
    const mark = requested.length;
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.getByRole('alert').filter({ hasText: 'Type a name for the index.' }).waitFor();
    expect(callsSince(mark, '/v1.2/indexes').filter((url) => !url.includes('?'))).toEqual([]);
    await page.getByLabel('Name').fill('playground');
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.locator('#index-select option', { hasText: 'playground' }).waitFor({ state: 'attached' });
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('vus-playground-api-key'))).toBe(key);
    await shot('2-index');
  });

  it('uploads a video and shows its task until it is ready, then lists the video', async () => {
    // The hidden file input is no Tab stop: Tab goes from control to control and reaches "Choose files…", never the input.
    await page.locator('#index-select').focus();
    const stops: string[] = [];
    for (let i = 0; i < 15; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate(() => {
          const active = (globalThis as any).document.activeElement;
          return active?.id || active?.textContent?.trim() || active?.tagName;
        }),
      );
    }
    expect(stops).toContain('Choose files…');
    expect(stops).not.toContain('video-files');
    await page.locator('#video-files').setInputFiles(fixture.path);
    await page.locator('.task .status', { hasText: /pending|validating|indexing|ready/ }).waitFor();
    await page.locator('.task.ready').waitFor({ timeout: 180_000 });
    await page.locator('button.video', { hasText: 'words-and-subtitles' }).waitFor();
    await shot('3-ready');
  }, 200_000);

  it('searches for a word shown in the video and plays the result from its start', async () => {
    // An empty query is answered on the page, and not sent.
    const mark = requested.length;
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Type something to search for.' }).waitFor();
    expect(callsSince(mark, 'search')).toEqual([]);
    await page.getByLabel('Query', { exact: true }).fill('planet');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const first = page.locator('button.result').first();
    await first.waitFor();
    const start = Number(await first.getAttribute('data-start'));
    const end = Number(await first.getAttribute('data-end'));
    // PLANET is on screen from 4 s to 8 s (frames are sampled once a second).
    expect(Math.abs(start - 4)).toBeLessThanOrEqual(1);
    await shot('4-results');

    // The player takes the place its placeholder held: the results stay where they were.
    // Measured on the page, not the viewport (the click scrolls the result into view).
    const topOnPage = () => first.evaluate((button: any) => button.getBoundingClientRect().top + (globalThis as any).scrollY);
    const before = await topOnPage();
    await first.click();
    await page.locator('#player').waitFor();
    await page.locator('#moment').waitFor();
    // The player is at the result's start: seeked there, then playing on from it (muted).
    await page.waitForFunction(
      ([from, to]) => {
        const video = (globalThis as any).document.querySelector('#player');
        return !!video && video.readyState >= 1 && video.currentTime >= from - 0.25 && video.currentTime <= to;
      },
      [start, end] as const,
      { timeout: 30_000 },
    );
    const playedFrom = await page.evaluate(() => (globalThis as any).document.querySelector('#player').currentTime);
    expect(playedFrom).toBeGreaterThanOrEqual(start - 0.25);
    expect(playedFrom).toBeLessThan(start + 2);
    // …and plays on from there (muted, so the browser allows it without a further gesture).
    await page.waitForFunction((from) => (globalThis as any).document.querySelector('#player').currentTime > from + 0.5, start, {
      timeout: 20_000,
    });
    // The matched span is marked on the timeline.
    await expect(page.locator('.timeline .span').count()).resolves.toBe(1);
    expect(Math.abs((await topOnPage()) - before)).toBeLessThanOrEqual(2);
    await shot('5-playing');
    // The moment stops at its end, and says it was played.
    await page.locator('#moment', { hasText: /^Played / }).waitFor({ timeout: 20_000 });
    const stoppedAt = await page.evaluate(() => {
      const video = (globalThis as any).document.querySelector('#player');
      return { paused: video.paused as boolean, at: video.currentTime as number };
    });
    expect(stoppedAt.paused).toBe(true);
    expect(stoppedAt.at).toBeGreaterThanOrEqual(end);
    expect(stoppedAt.at).toBeLessThan(end + 1);
  }, 60_000);

  it('searches by a combined query, pages through results, and by an image', async () => {
    const search = page.locator('section[aria-labelledby="search-title"]');
    // PLANET and GARDEN are on screen together from 6 s to 8 s.
    page.on('response', async (r) => {
      if (r.url().includes('combined-search')) console.log('DEBUG', r.request().postData(), await r.text());
    });
    /** Clicks Search and waits for the answer of this search (the page clears the previous results). */
    const runSearch = async (path: string) => {
      await Promise.all([
        page.waitForResponse((r) => r.url().includes(path)),
        search.getByRole('button', { name: 'Search', exact: true }).click(),
      ]);
    };
    await search.getByLabel('combined').check();
    await search.getByLabel('Part 1', { exact: true }).fill('planet');
    await search.getByLabel('Part 1 option').selectOption('text_in_video');
    await search.getByLabel('Part 2', { exact: true }).fill('garden');
    await search.getByLabel('Part 2 option').selectOption('text_in_video');
    await runSearch('/v1.2/combined-search');
    await search.getByText('1 result', { exact: true }).waitFor();
    expect(Math.abs(Number(await search.locator('button.result').first().getAttribute('data-start')) - 6)).toBeLessThanOrEqual(1);
    await shot('5a-combined');

    // Two words shown apart (ORANGE 0-4 s, BICYCLE 8-12 s: two moments), one per page: the next page brings the other.
    await search.getByLabel('text', { exact: true }).check();
    await search.getByText('Options').click();
    await search.getByLabel('Per page').fill('1');
    await search.getByLabel('Query', { exact: true }).fill('orange bicycle');
    await runSearch('/v1.2/search-v2');
    await search.getByText('2 results', { exact: true }).waitFor();
    await expect(search.locator('button.result').count()).resolves.toBe(1);
    await search.getByRole('button', { name: 'Next page' }).click();
    await search.locator('button.result').nth(1).waitFor();
    const starts = await search.locator('button.result').evaluateAll((buttons) => buttons.map((b: any) => Number(b.dataset.start)));
    expect(new Set(starts).size).toBe(2);

    await search.getByLabel('image', { exact: true }).check();
    await search.getByLabel('Image (JPEG or PNG)').setInputFiles(await photoPath('cat'));
    await runSearch('/v1.2/search-v2');
    await search.getByText(/^\d+ results?$/).waitFor();
    await expect(search.getByRole('alert').count()).resolves.toBe(0);
    await shot('5b-image');
  }, 60_000);

  it('classifies the videos of the index into classes of prompts, and plays the moments of a class', async () => {
    const panel = page.locator('section[aria-labelledby="classify-title"]');
    const classify = panel.getByRole('button', { name: 'Classify', exact: true });
    // No class: said on the page, nothing sent.
    const mark = requested.length;
    await classify.click();
    await panel.getByRole('alert').filter({ hasText: 'Type at least one class' }).waitFor();
    expect(callsSince(mark, '/classify')).toEqual([]);

    // ORANGE is on screen from 0 s to 4 s, BICYCLE from 8 s to 12 s.
    await panel.getByLabel(/^Classes/).fill('fruit: orange\nvehicle: a bicycle, bicycle');
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().includes('/v1.2/classify/bulk')), classify.click()]);
    expect(answer.status()).toBe(200);
    await panel.locator('h3', { hasText: 'words-and-subtitles' }).waitFor();
    const fruit = panel.locator('ul.classes > li', { hasText: 'fruit' });
    await expect(fruit.locator('.score').textContent()).resolves.toMatch(/^\d+\.\d$/);
    const moment = fruit.locator('ol.spans button').first();
    const start = Number(await moment.getAttribute('data-start'));
    expect(start).toBeLessThanOrEqual(4);
    const vehicle = panel.locator('ul.classes > li', { hasText: 'vehicle' }).locator('ol.spans button').first();
    expect(Math.abs(Number(await vehicle.getAttribute('data-start')) - 8)).toBeLessThanOrEqual(1);
    await moment.click();
    await page.locator('#moment', { hasText: /^Playing 0:0[0-4]–/ }).waitFor();
    await shot('5c-classify');
  }, 60_000);

  it('asks the video for a summary and streams an answer to a free prompt', async () => {
    // An empty question says so, instead of doing nothing.
    const mark = requested.length;
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Type something to ask about this video.' }).waitFor();
    expect(callsSince(mark, '/analyze')).toEqual([]);
    await page.getByRole('button', { name: 'Summary' }).click();
    const summary = page.locator('.answer .generated');
    await summary.waitFor();
    await page.waitForFunction(
      () => ((globalThis as any).document.querySelector('.answer .generated')?.textContent ?? '').trim().length > 0,
    );
    await shot('6-summary');

    await page.getByLabel('Prompt').fill('What words are shown on screen?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    // The answer to this prompt (titled by it), streamed to its end.
    await page.locator('.answer[aria-busy="false"]').filter({ hasText: 'What words are shown on screen?' }).waitFor({ timeout: 30_000 });
    const answer = (await summary.textContent()) ?? '';
    expect(answer.length).toBeGreaterThan(0);
    await shot('7-answer');

    // Chapters play from their start, by keyboard too.
    await page.getByRole('button', { name: 'Chapters' }).click();
    const chapter = page.locator('.answer ol.spans button').first();
    await chapter.waitFor();
    await chapter.focus();
    await page.keyboard.press('Enter');
    await page.locator('#moment', { hasText: /^Playing 0:00–/ }).waitFor();

    await page.getByRole('button', { name: 'Gist' }).click();
    await page.locator('.answer dl dt', { hasText: 'Title' }).waitFor();
    await shot('7a-gist');
  }, 60_000);

  it("shows why a task failed, in the API's words", async () => {
    await page.getByLabel('Video URL', { exact: true }).fill(files.url('missing.mp4'));
    await page.getByRole('button', { name: 'Index URL' }).click();
    await page.locator('.task .error', { hasText: 'parameter_invalid' }).waitFor({ timeout: 30_000 });
  });

  it('indexes a video by URL, and plays the moments nearest to a text by their embeddings', async () => {
    await page.getByLabel('Video URL', { exact: true }).fill(files.url('by-url.mp4'));
    await page.getByRole('button', { name: 'Index URL' }).click();
    await expect(page.locator('.task').count()).resolves.toBe(3);
    await page.locator('.task.ready').nth(1).waitFor({ timeout: 180_000 });
    // The video indexed from the URL, whose URL the embeddings view then knows.
    await page.locator('button.video', { hasText: 'by-url.mp4' }).click();
    await expect(page.getByLabel('Video URL for nearest moments (optional)').inputValue()).resolves.toBe(files.url('by-url.mp4'));
    // An empty text says so, instead of doing nothing.
    const mark = requested.length;
    await page.getByRole('button', { name: 'Embed', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Type something to embed.' }).waitFor();
    expect(callsSince(mark, '/embed')).toEqual([]);
    await page.getByLabel('Text to embed').fill('planet');
    await page.getByRole('button', { name: 'Embed', exact: true }).click();
    await page.getByText(/A vector of \d+ dimensions/).waitFor();
    const nearest = page.locator('section[aria-labelledby="embed-title"] ol.spans button');
    await nearest.first().waitFor({ timeout: 60_000 });
    await nearest.first().click();
    await page.locator('#moment').waitFor();
    await shot('8-embeddings');
  }, 240_000);

  it("creates a knowledge store and fills it: this index's videos have no asset, a file uploaded to the store becomes an item", async () => {
    const panel = page.locator('section[aria-labelledby="library-title"]');
    await panel.getByRole('button', { name: 'New store' }).click();
    // An empty name is answered on the page, and nothing is sent.
    const mark = requested.length;
    await panel.getByRole('button', { name: 'Create store' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Type a name for the knowledge store.' }).waitFor();
    expect(callsSince(mark, '/knowledge-stores')).toEqual([]);
    await panel.getByLabel('Store name').fill('garden library');
    await panel.getByRole('button', { name: 'Create store' }).click();
    await panel.locator('#store-select option', { hasText: 'garden library' }).waitFor({ state: 'attached' });
    await expect(panel.locator('#store-select option:checked').textContent()).resolves.toBe('garden library');

    // Both videos of the index were uploaded to POST /tasks (a file, a URL): neither is an asset, and the page says so.
    await panel.getByRole('button', { name: "Add this index's videos" }).click();
    await panel.getByRole('status').filter({ hasText: '2 videos were uploaded without an asset' }).waitFor();

    // The button opens the hidden file input, which is no Tab stop.
    await panel.locator('#store-select').focus();
    const stops: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate(() => {
          const active = (globalThis as any).document.activeElement;
          return active?.id || active?.textContent?.trim() || active?.tagName;
        }),
      );
    }
    expect(stops).toContain('Upload files to the store…');
    expect(stops).not.toContain('store-files');
    await panel.locator('#store-files').setInputFiles(fixture.path);
    // Uploaded as an asset, checked, then an item of the store with its status.
    const item = panel.locator('ul.items li.item', { hasText: 'words-and-subtitles' });
    await item.locator('.status', { hasText: /^(queued|pending|processing|ready)$/ }).waitFor({ timeout: 60_000 });

    // An empty question says so, and is not sent.
    const asked = requested.length;
    await panel.getByRole('button', { name: 'Ask the library' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Type something to ask your library.' }).waitFor();
    expect(callsSince(asked, '/responses')).toEqual([]);
    await page.setViewportSize({ width: 390, height: 800 });
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('8a-library');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 90_000);

  it('answers a question over the store as it streams, and a citation plays its moment to its end', async () => {
    const panel = page.locator('section[aria-labelledby="library-title"]');
    // The item is indexed into the store before anything in it can be cited.
    await panel.locator('ul.items li.item.ready', { hasText: 'words-and-subtitles' }).waitFor({ timeout: 180_000 });
    // "The quick brown fox jumps over the lazy dog." is said (subtitled) from 0.5 s to 3 s.
    await panel.getByLabel('Question').fill('Where does the quick brown fox jump?');
    const [answered] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/v1.3/responses')),
      panel.getByRole('button', { name: 'Ask the library' }).click(),
    ]);
    expect(answered.status()).toBe(200);
    expect(answered.headers()['content-type']).toMatch(/^text\/event-stream/);
    const answer = panel.locator('.library-answer[aria-busy="false"]');
    await answer.waitFor({ timeout: 60_000 });
    await expect(answer.locator('h3').textContent()).resolves.toBe('Where does the quick brown fox jump?');
    await expect(answer.locator('.generated').textContent()).resolves.toMatch(/fox/i);
    // Each citation is a marker in the text and a source below it, with the moment it cites.
    const marker = answer.locator('button.cite').first();
    const start = Number(await marker.getAttribute('data-start'));
    const end = Number(await marker.getAttribute('data-end'));
    expect(start).toBeLessThanOrEqual(1);
    expect(end).toBeGreaterThanOrEqual(2);
    expect(end).toBeLessThanOrEqual(6);
    await expect(answer.locator('ol.sources button.source').count()).resolves.toBeGreaterThan(0);
    await shot('8b-library-answer');

    // By keyboard: the marker plays the item's stream from the moment's start, and stops at its end.
    await marker.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('#player-title').textContent()).resolves.toMatch(/words-and-subtitles/);
    await page.locator('#moment', { hasText: /^Playing 0:00–/ }).waitFor();
    await page.locator('#moment', { hasText: /^Played / }).waitFor({ timeout: 30_000 });
    const stoppedAt = await page.evaluate(() => {
      const video = (globalThis as any).document.querySelector('#player');
      return { paused: video.paused as boolean, at: video.currentTime as number };
    });
    expect(stoppedAt.paused).toBe(true);
    expect(stoppedAt.at).toBeGreaterThanOrEqual(end);
    expect(stoppedAt.at).toBeLessThan(end + 1);
    await shot('8c-library-played');
  }, 240_000);

  it('is usable on a narrow screen: one column, nothing wider than the viewport', async () => {
    await page.setViewportSize({ width: 380, height: 800 });
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('9-narrow');
  });

  it('did all of that under its Content-Security-Policy, which refused nothing', () => {
    expect(refusedByPolicy).toEqual([]);
  });
});

describe('the pages holding a key, under their policies', () => {
  it('/docs renders the API reference, and its policy refuses nothing', async () => {
    refusedByPolicy.length = 0;
    await page.setViewportSize({ width: 1280, height: 900 });
    const response = await page.goto(`${stack.url}/docs`);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    // An operation's section, as Scalar renders it (the sidebar's entry of the same name may be folded away).
    await page.getByRole('heading', { name: 'Create an index' }).first().waitFor({ timeout: 60_000 });
    expect(refusedByPolicy).toEqual([]);
    await shot('10-docs');
  }, 90_000);

  it.each(['/', '/docs'])('%s is not shown in a frame of another page', async (path) => {
    // A page of another origin (the file server's) that frames the page: Chromium refuses to show it there.
    await page.goto(files.url('framing'));
    const refused = page.waitForEvent('console', {
      predicate: (message) => /frame-ancestors 'none'/.test(message.text()),
      timeout: 10_000,
    });
    await page.setContent(`<iframe src="${stack.url}${path}"></iframe>`, { waitUntil: 'load' });
    await refused;
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    expect(framed).toBeDefined();
    await expect(framed!.getByLabel('API key').count()).resolves.toBe(0);
  });
});

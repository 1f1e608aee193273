/**
 * `npm start` as a person runs it: the built embedded server in its own process, on a fresh data
 * folder. Requires the build (npm test builds first).
 */
import { execFile } from 'node:child_process';
import { startNpmStart, textScenesVideo } from '@vus/testing';
import { existsSync, mkdtempSync, openAsBlob, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '../../..');
const KEYS_CLI = join(ROOT, 'services/gateway/dist/cli/keys.js');

// Each start opens one PGlite (WASM PostgreSQL) per service: slow on a busy 2-core machine.
jest.setTimeout(120_000);

const start = (dataDir: string, env: Record<string, string> = {}) => startNpmStart({ DATA_DIR: dataDir, ...env });

const keysCli = (dataDir: string, ...args: string[]) =>
  promisify(execFile)(process.execPath, [KEYS_CLI, ...args], {
    env: { ...process.env, DATA_DIR: dataDir, VUS_URL: '', VUS_ADMIN_TOKEN: '' },
  });

describe('embedded mode', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'vus-embedded-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints a base URL and a first key once, serves the API, keeps data across restarts, and stops on Ctrl-C', async () => {
    const first = await start(dataDir);
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.apiKey).toMatch(/^tlk_/);
    const created = await fetch(`${first.baseUrl}/v1.2/indexes`, {
      method: 'POST',
      headers: { 'x-api-key': first.apiKey!, 'content-type': 'application/json' },
      body: JSON.stringify({ index_name: 'kept', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual'] }] }),
    });
    expect(created.status).toBe(201);

    // The keys CLI works against the running server.
    const { stdout } = await keysCli(dataDir, 'create', '--org', 'acme');
    const cliKey = stdout.trim();
    expect(cliKey).toMatch(/^tlk_/);
    expect((await fetch(`${first.baseUrl}/v1.2/indexes`, { headers: { 'x-api-key': cliKey } })).status).toBe(200);
    expect((await keysCli(dataDir, 'orgs')).stdout).toMatch(/default\n.*acme/);

    // A second server on the same data folder is refused.
    await expect(start(dataDir)).rejects.toThrow(/Another server/);
    expect(await first.stop()).toBe(0);
    // Which models run, and which downloadable ones stand absent (issue 35 §3): nothing is in this clone's MODELS_DIR.
    expect(first.output()).toMatch(
      /^Models: bundled paddleocr-v4, centernet-coco, blazeface, face-api-resnet\b.*; not downloaded clip, clap, whisper: /m,
    );

    const second = await start(dataDir);
    expect(second.apiKey).toBeUndefined();
    const listed = await fetch(`${second.baseUrl}/v1.2/indexes`, { headers: { 'x-api-key': first.apiKey! } });
    expect(((await listed.json()) as { data: { index_name: string }[] }).data.map((i) => i.index_name)).toEqual(['kept']);
    expect(await second.stop()).toBe(0);
  });

  it('uses VUS_BOOTSTRAP_API_KEY when set, and never prints it or any part of it; keeps a webhook secret key', async () => {
    const supplied = 'tlk_Zq7Xv-key-for-scripts-0001';
    const running = await start(dataDir, { VUS_BOOTSTRAP_API_KEY: supplied });
    expect((await fetch(`${running.baseUrl}/v1.3/indexes`, { headers: { 'x-api-key': supplied } })).status).toBe(200);
    // The operator has the key: the output (a log, often) gets none of it, nor does the key list.
    expect(running.apiKey).toBeUndefined();
    expect(running.output()).not.toContain('Zq7X');
    const listed = (await keysCli(dataDir, 'list', '--org', 'default')).stdout;
    expect(listed).toMatch(/sha256:[0-9a-f]{8}…/);
    expect(listed).not.toContain('Zq7X');
    // Webhook signing secrets are encrypted under a key kept beside the admin token, owner-only.
    expect(statSync(join(dataDir, 'webhook-secret-key')).mode & 0o777).toBe(0o600);
    expect(await running.stop()).toBe(0);
  });

  it('indexes an uploaded video in the same process (blob folder and worker under DATA_DIR)', async () => {
    const running = await start(dataDir);
    const headers = { 'x-api-key': running.apiKey! };
    const index = await fetch(`${running.baseUrl}/v1.3/indexes`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ index_name: 'videos', models: [{ model_name: 'marengo3.0', model_options: ['visual'] }] }),
    });
    const indexId = ((await index.json()) as { _id: string })._id;
    const form = new FormData();
    form.append('index_id', indexId);
    form.append('video_file', await openAsBlob((await textScenesVideo()).path), 'scenes.mp4');
    const created = (await (await fetch(`${running.baseUrl}/v1.3/tasks`, { method: 'POST', headers, body: form })).json()) as {
      _id: string;
      video_id: string;
    };
    let status = '';
    for (let i = 0; i < 600 && status !== 'ready' && status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = ((await (await fetch(`${running.baseUrl}/v1.3/tasks/${created._id}`, { headers })).json()) as { status: string }).status;
    }
    expect(status).toBe('ready');
    const videoUrl = `${running.baseUrl}/v1.3/indexes/${indexId}/videos/${created.video_id}`;
    const video = (await (await fetch(videoUrl, { headers })).json()) as {
      system_metadata: { filename: string };
      hls: { video_url: string };
    };
    expect(video.system_metadata.filename).toBe('scenes.mp4');
    // The stream is read through index-service, from the same blob folder.
    const playlist = await fetch(video.hls.video_url);
    expect([playlist.status, playlist.headers.get('content-type')]).toEqual([200, 'application/vnd.apple.mpegurl']);
    // Analysis tasks run on analyze-service's job queue here too: this index has no Pegasus engine, so the runner fails it, saying why.
    const analysis = (await (
      await fetch(`${running.baseUrl}/v1.3/analyze/tasks`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ video: { type: 'asset_id', asset_id: created.video_id }, prompt: 'What is shown?' }),
      })
    ).json()) as { task_id: string };
    let analyzed = { status: 'queued', error: { message: '' } };
    for (let i = 0; i < 300 && ['queued', 'processing'].includes(analyzed.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      analyzed = (await (await fetch(`${running.baseUrl}/v1.3/analyze/tasks/${analysis.task_id}`, { headers })).json()) as typeof analyzed;
    }
    expect(analyzed).toMatchObject({ status: 'failed', error: { message: expect.stringContaining('no generative engine') } });
    // Deleting the video removes its folder of blobs (index-service, on its own video.deleted).
    expect((await fetch(videoUrl, { method: 'DELETE', headers })).status).toBe(204);
    const folder = join(dataDir, 'blobs', 'videos', created.video_id);
    const filesLeft = () =>
      existsSync(folder) ? readdirSync(folder, { recursive: true, withFileTypes: true }).filter((f) => f.isFile()) : [];
    for (let i = 0; i < 100 && filesLeft().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(filesLeft()).toEqual([]);
    expect((await fetch(video.hls.video_url)).status).toBe(404);
    expect(await running.stop()).toBe(0);
  });

  it('refuses to start with invalid configuration, naming it', async () => {
    await expect(start(dataDir, { PORT: 'eighty' })).rejects.toThrow(/PORT/);
  });
});

/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CLIP_FILES, clipProvider, ModelRegistry, pullModel, type ModelsConfig } from '../src';
import { startHubServer, type HubServer } from './helpers/hub-server';
import { makeTinyModels, type TinyModels } from './helpers/tiny-models';

const run = promisify(execFile);
const CLI = resolve(__dirname, '../dist/cli/models.js');

/** `npm run models -- …` as a user runs it: the built CLI in a child process, its exit code and output. */
async function models(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run models: pull, verify and list against a local hub', () => {
  let tiny: TinyModels;
  let hub: HubServer;
  let modelsDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    tiny = await makeTinyModels();
    hub = await startHubServer(tiny.dir);
  });

  beforeEach(async () => {
    modelsDir = await mkdtemp(join(tmpdir(), 'vus-pulled-'));
    env = { MODELS_DIR: modelsDir, HF_ENDPOINT: hub.url, MODELS_CLIP: tiny.ids.clip, MODELS_WHISPER: 'absent/whisper' };
    hub.requests.length = 0;
  });

  afterEach(() => rm(modelsDir, { recursive: true, force: true }));

  afterAll(async () => {
    await hub.close();
    await tiny.remove();
  }, 60_000);

  it('pulls CLIP into MODELS_DIR in the layout the provider loads, then embeds with it', async () => {
    const pulled = await models(['pull', 'clip'], env);
    expect(pulled).toMatchObject({ code: 0 });
    expect(pulled.stdout).toContain('clip: 6 files');
    expect(pulled.stdout).toContain('checksums match');
    for (const file of CLIP_FILES) {
      expect(await readFile(join(modelsDir, tiny.ids.clip, file))).toEqual(await readFile(join(tiny.dir, tiny.ids.clip, file)));
    }

    const config: ModelsConfig = { modelsDir, allowDownload: false, clipModel: tiny.ids.clip, whisperModel: 'absent/whisper' };
    const registry = new ModelRegistry([clipProvider(config)]);
    try {
      const clip = await registry.get('visual_embedder');
      expect((await clip.embedText('a red car')).length).toBe(8);
    } finally {
      await registry.dispose();
    }
  }, 60_000);

  it('resumes a broken download with a Range request and still checks the checksum', async () => {
    hub.breakAfter('onnx/vision_model.onnx', 1000);
    const files = await pullModel({ endpoint: hub.url, modelId: tiny.ids.clip, files: CLIP_FILES, modelsDir });
    expect(files.map((f) => f.state)).toEqual(CLIP_FILES.map(() => 'downloaded'));
    // The second request starts where the part ends: at most the 1,000 bytes sent (a stream that errors drops what it had queued).
    const resumedAt = hub.requests
      .map((r) => new RegExp(`^GET /${tiny.ids.clip}/resolve/main/onnx/vision_model.onnx bytes=(\\d+)-$`).exec(r)?.[1])
      .find((start) => start !== undefined);
    expect(Number(resumedAt)).toBeGreaterThan(0);
    expect(Number(resumedAt)).toBeLessThanOrEqual(1000);
    const source = await stat(join(tiny.dir, tiny.ids.clip, 'onnx/vision_model.onnx'));
    expect((await stat(join(modelsDir, tiny.ids.clip, 'onnx/vision_model.onnx'))).size).toBe(source.size);
  }, 60_000);

  it('does not download again what is already there and right', async () => {
    await pullModel({ endpoint: hub.url, modelId: tiny.ids.clip, files: CLIP_FILES, modelsDir });
    hub.requests.length = 0;
    const again = await pullModel({ endpoint: hub.url, modelId: tiny.ids.clip, files: CLIP_FILES, modelsDir });
    expect(again.every((f) => f.state === 'present')).toBe(true);
    expect(hub.requests.filter((r) => r.includes('/resolve/'))).toEqual([]);
  }, 60_000);

  it('verify finds a damaged file offline, and pull mends it', async () => {
    expect((await models(['pull', 'clip'], env)).code).toBe(0);
    expect(await models(['verify', 'clip'], env)).toMatchObject({ code: 0, stdout: expect.stringContaining('clip (tiny/clip): verified') });

    await writeFile(join(modelsDir, tiny.ids.clip, 'onnx/text_model.onnx'), 'not a model');
    const damaged = await models(['verify', 'clip'], { ...env, HF_ENDPOINT: 'http://127.0.0.1:9' });
    expect(damaged.code).toBe(1);
    expect(damaged.stdout).toContain('damaged');
    expect(damaged.stdout).toContain('onnx/text_model.onnx differs from what was pulled');

    expect((await models(['pull', 'clip'], env)).stdout).toContain('1 downloaded, 5 already there');
    expect((await models(['verify', 'clip'], env)).code).toBe(0);
  }, 60_000);

  it('list says what is in MODELS_DIR, what is used, sizes from the hub and licences', async () => {
    await models(['pull', 'clip'], env);
    const { code, stdout } = await models(['list'], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(/clip +tiny\/clip\n +verified in MODELS_DIR \([\d.]+ MB\); used; size [\d.]+ MB; MIT/);
    expect(stdout).toMatch(/whisper-base +Xenova\/whisper-base\n +not in MODELS_DIR; not used \(set MODELS_WHISPER=Xenova\/whisper-base\)/);
  }, 60_000);

  it('answers unknown names and models the hub lacks with a clear message', async () => {
    expect(await models(['pull', 'dalle'], env)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Unknown model "dalle". Known: clip, clap'),
    });
    const absent = await models(['pull', 'whisper'], env);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain('the hub has no model absent/whisper');
    expect(await models([], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: npm run models') });
    await expect(pullModel({ endpoint: hub.url, modelId: '../etc', files: CLIP_FILES, modelsDir })).rejects.toThrow('is not a model id');
  }, 60_000);
});

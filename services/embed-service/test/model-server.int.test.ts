/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 *
 * embed-service as the model server of search-service and the indexing worker: vectors per model
 * name (CLIP and CLAP on the tiny models the project's script generates), image labels, and
 * which provider serves which name.
 */
import { createEmbedClient, type EmbedClient } from '@vus/clients';
import { createLogger, newId } from '@vus/core';
import { runFfmpeg } from '@vus/media';
import { clapProvider, clipProvider, cocoDetectorProvider, ModelRegistry, type ModelsConfig } from '@vus/models';
import { codeOf, photoPath } from '@vus/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedService, type RunningEmbedService } from '../src/main';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tinyModels = require('../../../scripts/models/make-tiny-models.js') as {
  makeTinyModels(dir: string): { clip: string; clap: string };
};

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const ctx = { orgId: newId() };
const norm = (v: readonly number[]): number => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('embed-service as the model server', () => {
  let dir: string;
  let models: ModelRegistry;
  let bare: ModelRegistry;
  let service: RunningEmbedService;
  let bareService: RunningEmbedService;
  let client: EmbedClient;
  let bareClient: EmbedClient;
  let catPhoto: Buffer;
  let tone: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'embed-models-'));
    const tiny = tinyModels.makeTinyModels(join(dir, 'models'));
    const config: ModelsConfig = {
      modelsDir: join(dir, 'models'),
      allowDownload: false,
      clipModel: tiny.clip,
      clapModel: tiny.clap,
      whisperModel: 'none/whisper',
    };
    models = new ModelRegistry([cocoDetectorProvider(), clipProvider(config), clapProvider(config)]);
    // A server with nothing in MODELS_DIR and no detector.
    const empty = { ...config, modelsDir: join(dir, 'empty') };
    bare = new ModelRegistry([clipProvider(empty), clapProvider(empty)]);
    [service, bareService] = await Promise.all([
      startEmbedService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger, models }),
      startEmbedService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger, models: bare }),
    ]);
    client = createEmbedClient(service.address);
    bareClient = createEmbedClient(bareService.address);
    catPhoto = await readFile(await photoPath('cat'));
    await runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', join(dir, 'tone.wav')]);
    tone = await readFile(join(dir, 'tone.wav'));
  }, 120_000);

  afterAll(async () => {
    client?.close();
    bareClient?.close();
    await Promise.all([service?.stop(), bareService?.stop()]);
    await Promise.all([models.dispose(), bare.dispose()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('embeds query text and images with CLIP (model name empty: the visual model), unit vectors under the name stored with segments', async () => {
    const answer = await client.embedQuery(ctx, { model_name: '', inputs: [{ text: 'a cat' }, { image: catPhoto }] });
    expect(answer).toMatchObject({ available: true, model_name: 'clip', dimensions: 8, reason: '' });
    expect(answer.vectors).toHaveLength(2);
    for (const v of answer.vectors) expect(norm(v.values)).toBeCloseTo(1, 5);
    // No inputs: only whether the model is there (the worker asks once per video).
    expect(await client.embedQuery(ctx, { model_name: 'clip', inputs: [] })).toMatchObject({ available: true, dimensions: 8, vectors: [] });
  }, 60_000);

  it('embeds sounds and text with CLAP (the audio decoded at the 48 kHz its preprocessor wants)', async () => {
    const answer = await client.embedQuery(ctx, { model_name: 'clap', inputs: [{ audio: tone }, { text: 'a beep' }] });
    expect(answer).toMatchObject({ available: true, model_name: 'clap', dimensions: 8 });
    for (const v of answer.vectors) expect(norm(v.values)).toBeCloseTo(1, 5);
  }, 60_000);

  it('keeps the API model names on the bundled concept embedding', async () => {
    const answer = await client.embedQuery(ctx, { model_name: 'Marengo-retrieval-2.7', inputs: [{ text: 'a cat' }] });
    expect(answer).toMatchObject({ available: true, model_name: 'Marengo-retrieval-2.7' });
    expect(answer.vectors[0]?.values).toHaveLength(1024);
  });

  it.each([
    ['an image for the audio model', { model_name: 'clap', inputs: [{ image: Buffer.from('x') }] }, 'parameter_invalid'],
    ['audio for the visual model', { model_name: 'clip', inputs: [{ audio: Buffer.from('x') }] }, 'parameter_invalid'],
    ['audio for an API model name', { model_name: 'marengo3.0', inputs: [{ audio: Buffer.from('x') }] }, 'parameter_invalid'],
    ['a broken frame', { model_name: 'clip', inputs: [{ image: Buffer.from('not an image') }] }, 'unsupported_file_type'],
    [
      'audio that is not audio',
      { model_name: 'clap', inputs: [{ audio: Buffer.from('not audio at all, just words') }] },
      'audio_file_broken',
    ],
    ['an unknown model name', { model_name: 'Marengo-retrieval-9', inputs: [{ text: 'x' }] }, 'parameter_invalid'],
  ])('refuses %s', async (_name, request, code) => {
    expect(await codeOf(client.embedQuery(ctx, request))).toBe(code);
  });

  it('says what the detector sees in an image', async () => {
    const { available, labels } = await client.detectImageLabels(ctx, { image: catPhoto });
    expect(available).toBe(true);
    expect(labels).toContain('cat');
  }, 60_000);

  it('is not an error when a model is missing from MODELS_DIR: unavailable, with the reason', async () => {
    const answer = await bareClient.embedQuery(ctx, { model_name: 'clip', inputs: [{ text: 'a cat' }] });
    expect(answer).toMatchObject({ available: false, model_name: 'clip', vectors: [] });
    expect(answer.reason).toMatch(/^clip: CLIP model tiny\/clip is not in MODELS_DIR/);
    expect((await bareClient.embedQuery(ctx, { model_name: 'clap', inputs: [] })).reason).toMatch(/^clap: CLAP model tiny\/clap/);
    expect(await bareClient.detectImageLabels(ctx, { image: catPhoto })).toMatchObject({ available: false, labels: [] });
  });

  describe('without CLIP, the visual model (model name empty) is the bundled scene descriptor', () => {
    it('embeds images: 512-d unit vectors under the name `scene`, the same picture nearer itself than another', async () => {
      const cells = await readFile(await photoPath('cells'));
      const answer = await bareClient.embedQuery(ctx, {
        model_name: '',
        inputs: [{ image: catPhoto }, { image: cells }, { image: catPhoto }],
      });
      expect(answer).toMatchObject({ available: true, model_name: 'scene', dimensions: 512 });
      const [cat, other, again] = answer.vectors.map((v) => v.values);
      for (const v of [cat!, other!]) expect(norm(v)).toBeCloseTo(1, 5);
      expect(dot(cat!, again!)).toBeCloseTo(1, 5);
      expect(dot(cat!, other!)).toBeLessThan(0.7);
      // Only whether it is there, as the worker asks once per video.
      expect(await bareClient.embedQuery(ctx, { model_name: '', inputs: [] })).toMatchObject({ available: true, model_name: 'scene' });
    });

    it('has no vector for text, and says why (search then runs on words and labels)', async () => {
      const answer = await bareClient.embedQuery(ctx, { model_name: '', inputs: [{ text: 'a cat' }] });
      expect(answer).toMatchObject({ available: false, model_name: 'scene', vectors: [] });
      expect(answer.reason).toMatch(
        /^text needs CLIP \(clip: CLIP model tiny\/clip is not in MODELS_DIR.*scene descriptor embeds images only$/,
      );
    });

    it.each([
      ['text, named', { model_name: 'scene', inputs: [{ text: 'a cat' }] }, 'parameter_invalid'],
      ['a broken frame', { model_name: '', inputs: [{ image: Buffer.from('not an image') }] }, 'unsupported_file_type'],
    ])('refuses %s', async (_name, request, code) => {
      expect(await codeOf(bareClient.embedQuery(ctx, request))).toBe(code);
    });
  });

  it('lists which provider serves which model name', async () => {
    const { providers } = await client.listModels(ctx);
    const served = Object.fromEntries(providers.filter((p) => p.model_names.length > 0).map((p) => [p.name, p.model_names]));
    expect(served).toEqual({
      'concept-embedding': ['Marengo-retrieval-2.6', 'Marengo-retrieval-2.7', 'marengo3.0'],
      'scene-descriptor': ['scene'],
      clip: ['clip'],
      clap: ['clap'],
    });
    const bareProviders = (await bareClient.listModels(ctx)).providers;
    expect(bareProviders.find((p) => p.name === 'clip')).toMatchObject({ loaded: false, error: expect.stringMatching(/MODELS_DIR/) });
  });
});

/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { createEmbedClient, type EmbedClient } from '@vus/clients';
import { createLogger, newId } from '@vus/core';
import { runFfmpeg } from '@vus/media';
import { cocoDetectorProvider, cosine, ModelRegistry, paddleOcrProvider, type ProviderDefinition } from '@vus/models';
import { codeOf, photoPath } from '@vus/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedService, type RunningEmbedService } from '../src/main';

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const ctx = { orgId: newId() };

describe('embed-service over gRPC', () => {
  let dir: string;
  let service: RunningEmbedService;
  let client: EmbedClient;
  const models = new ModelRegistry([cocoDetectorProvider(), paddleOcrProvider()]);
  let catPhoto: Buffer;
  let tone: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'embed-service-'));
    service = await startEmbedService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: join(dir, 'db') }, logger, models });
    client = createEmbedClient(service.address);
    catPhoto = await readFile(await photoPath('cat'));
    await runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=12', '-c:a', 'libmp3lame', join(dir, 'tone.mp3')]).catch(() =>
      runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=12', join(dir, 'tone.wav')]),
    );
    tone = await readFile(join(dir, 'tone.mp3')).catch(() => readFile(join(dir, 'tone.wav')));
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await service?.stop();
    await models.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('embeds text at the size of the model name: 1024 for Marengo 2.7, 512 for marengo3.0', async () => {
    const legacy = await client.createEmbedding(ctx, { model_name: 'Marengo-retrieval-2.7', text: 'a cat on a sofa' });
    expect(legacy.model_name).toBe('Marengo-retrieval-2.7');
    expect(legacy.text_embedding?.segments[0]?.vector).toHaveLength(1024);
    const v3 = await client.createEmbedding(ctx, { model_name: 'marengo3.0', text: 'a cat on a sofa' });
    expect(v3.text_embedding?.segments[0]?.vector).toHaveLength(512);
  });

  it('puts an image in the same space as text, and text+image in one fused vector', async () => {
    const result = await client.createEmbedding(ctx, {
      model_name: 'Marengo-retrieval-2.7',
      text: 'a cat',
      image: { data: catPhoto, filename: 'cat.png' },
    });
    expect(result.input_type).toBe('text_image');
    const image = Float32Array.from(result.image_embedding?.segments[0]?.vector ?? []);
    const text = Float32Array.from(result.text_embedding?.segments[0]?.vector ?? []);
    const motorcycle = await client.createEmbedding(ctx, { text: 'motorcycle' });
    expect(cosine(text, image)).toBeGreaterThan(
      cosine(Float32Array.from(motorcycle.text_embedding?.segments[0]?.vector ?? []), image) + 0.2,
    );
    expect(result.image_embedding?.metadata?.input_filename).toBe('cat.png');
    expect(result.text_image_embedding?.segments[0]?.vector).toHaveLength(1024);
  }, 60_000);

  it('embeds audio in segments with their offsets', async () => {
    const result = await client.createEmbedding(ctx, { audio: { data: tone }, start_sec: 1 });
    const segments = result.audio_embedding?.segments ?? [];
    expect(segments.map((s) => [s.start, Math.round((s.end ?? 0) * 10) / 10])).toEqual([
      [1, 11],
      [11, 12],
    ]);
    expect(segments[0]?.vector).toHaveLength(1024);
  }, 60_000);

  it.each([
    ['no input', {}, 'parameter_not_provided'],
    ['an unknown model name', { model_name: 'Marengo-retrieval-9', text: 'cat' }, 'parameter_invalid'],
    ['a non-image image', { image: { data: Buffer.from('not an image at all') } }, 'unsupported_file_type'],
    ['audio that is not audio', { audio: { data: Buffer.from('definitely not audio, just text') } }, 'audio_file_broken'],
    ['a playlist as audio', { audio: { data: Buffer.from('#EXTM3U\n#EXTINF:10,\nfile:///etc/passwd\n') } }, 'audio_file_broken'],
    ['a private URL', { image: { url: 'http://127.0.0.1:1/cat.png' } }, 'parameter_invalid'],
    ['too long a text with text_truncate none', { text: 'word '.repeat(100), text_truncate: 'none' }, 'token_limit_exceeded'],
    ['an image over 5 MB', { image: { data: Buffer.alloc(5 * 1024 * 1024 + 1) } }, 'payload_too_large'],
  ])(
    'refuses %s',
    async (_name, request, code) => {
      expect(await codeOf(client.createEmbedding(ctx, request))).toBe(code);
    },
    30_000,
  );

  it('says which provider serves which model name', async () => {
    const { providers } = await client.listModels(ctx);
    expect(providers.find((p) => p.name === 'concept-embedding')?.model_names).toEqual([
      'Marengo-retrieval-2.6',
      'Marengo-retrieval-2.7',
      'marengo3.0',
    ]);
  });
});

describe('synchronous audio when the caller goes away', () => {
  it('stops the speech recognition at the caller’s deadline instead of running it to the end', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'embed-service-gone-'));
    let started!: () => void;
    const recognising = new Promise<void>((resolve) => (started = resolve));
    let stopped = false;
    // A recogniser that would run for ever unless stopped.
    const speech: ProviderDefinition<'speech_recognizer'> = {
      capability: 'speech_recognizer',
      name: 'endless',
      model: 'endless',
      kind: 'bundled',
      check: async () => undefined,
      load: async () => ({
        languages: ['en'],
        transcribe: (_audio, options) =>
          new Promise((_resolve, reject) => {
            started();
            options?.signal?.addEventListener('abort', () => ((stopped = true), reject(new Error('stopped'))), { once: true });
          }),
      }),
    };
    const service = await startEmbedService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: join(dir, 'db') },
      logger,
      models: new ModelRegistry([speech]),
    });
    const client = createEmbedClient(service.address);
    try {
      await runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', join(dir, 'tone.wav')]);
      const tone = await readFile(join(dir, 'tone.wav'));
      const call = client.createEmbedding({ ...ctx, deadline: new Date(Date.now() + 3_000) }, { audio: { data: tone } });
      await recognising;
      expect(await codeOf(call)).toBe('deadline_exceeded');
      for (let tries = 0; tries < 50 && !stopped; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(stopped).toBe(true);
    } finally {
      client.close();
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

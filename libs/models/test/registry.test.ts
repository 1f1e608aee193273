import { ConfigError } from '@vus/core';
import {
  createModelRegistry,
  loadModelsConfig,
  missingPocketSphinx,
  ModelRegistry,
  POCKETSPHINX_DEFAULTS,
  type ProviderDefinition,
  type TextReader,
} from '../src';
import { withoutPaths } from '../src/registry';

function fakeReader(name: string, behaviour: { missing?: string; fails?: string } = {}) {
  const calls = { check: 0, load: 0, dispose: 0 };
  const reader: TextReader & { dispose(): Promise<void> } = {
    readText: async () => [],
    dispose: async () => {
      calls.dispose++;
    },
  };
  const definition: ProviderDefinition<'text_reader'> = {
    capability: 'text_reader',
    name,
    model: `${name}-model`,
    kind: 'bundled',
    check: async () => {
      calls.check++;
      return behaviour.missing;
    },
    load: async () => {
      calls.load++;
      if (behaviour.fails) throw new Error(behaviour.fails);
      return reader;
    },
  };
  return { definition, reader, calls };
}

describe('ModelRegistry', () => {
  it('loads a provider once, on first use, even under concurrent callers', async () => {
    const fake = fakeReader('ocr');
    const registry = new ModelRegistry([fake.definition]);
    expect(registry.status()[0]).toMatchObject({ state: 'available' });
    expect(fake.calls.load).toBe(0);
    const [a, b] = await Promise.all([registry.get('text_reader'), registry.get('text_reader')]);
    expect(a).toBe(fake.reader);
    expect(b).toBe(fake.reader);
    expect(fake.calls.load).toBe(1);
    expect(registry.status()[0]).toEqual({
      capability: 'text_reader',
      provider: 'ocr',
      model: 'ocr-model',
      kind: 'bundled',
      state: 'loaded',
    });
  });

  it('falls through to the next provider of a capability and says why the first is out', async () => {
    const missing = fakeReader('first', { missing: 'files are missing' });
    const second = fakeReader('second');
    const registry = new ModelRegistry([missing.definition, second.definition]);
    expect(await registry.get('text_reader')).toBe(second.reader);
    expect(registry.status().map((s) => [s.provider, s.state, s.reason])).toEqual([
      ['first', 'unavailable', 'files are missing'],
      ['second', 'loaded', undefined],
    ]);
  });

  it('remembers a failed load instead of retrying it on every call', async () => {
    const broken = fakeReader('broken', { fails: 'bad protobuf' });
    const registry = new ModelRegistry([broken.definition]);
    expect(await registry.find('text_reader')).toBeUndefined();
    expect(await registry.find('text_reader')).toBeUndefined();
    expect(broken.calls.load).toBe(1);
    expect(registry.status()[0]).toMatchObject({ state: 'unavailable', reason: 'failed to load: bad protobuf' });
    // A later probe (the engines listing, /health) finds its files but still says it failed, and does not retry it.
    expect((await registry.probe())[0]).toMatchObject({ state: 'unavailable', reason: 'failed to load: bad protobuf' });
    expect(await registry.find('text_reader')).toBeUndefined();
    expect(broken.calls.load).toBe(1);
  });

  it('keeps file paths of a load error out of the reason (it reaches API users)', async () => {
    const broken = fakeReader('broken', { fails: 'Load model from /srv/models/Xenova/clip/onnx/vision_model.onnx failed: bad protobuf' });
    const registry = new ModelRegistry([broken.definition]);
    expect(await registry.find('text_reader')).toBeUndefined();
    expect(registry.status()[0]?.reason).toBe('failed to load: Load model from vision_model.onnx failed: bad protobuf');
  });

  it('answers a missing capability with model_unavailable naming every reason', async () => {
    const registry = new ModelRegistry([fakeReader('a', { missing: 'no files' }).definition]);
    await expect(registry.get('text_reader')).rejects.toMatchObject({
      code: 'model_unavailable',
      message: 'No text reader model is available. a: no files',
    });
    await expect(registry.get('speech_recognizer')).rejects.toMatchObject({
      code: 'model_unavailable',
      message: 'No speech recognizer model is available. No provider is configured.',
    });
  });

  it('probes without loading, and disposes what it loaded', async () => {
    const fake = fakeReader('ocr');
    const registry = new ModelRegistry([fake.definition]);
    expect((await registry.probe())[0]).toMatchObject({ state: 'available' });
    expect(fake.calls.load).toBe(0);
    await registry.get('text_reader');
    await registry.dispose();
    expect(fake.calls.dispose).toBe(1);
    expect(registry.status()[0]).toMatchObject({ state: 'available' });
  });
});

describe('createModelRegistry', () => {
  it('lists every capability with its provider; downloadables are unavailable without files, Whisper before PocketSphinx', async () => {
    const registry = createModelRegistry(loadModelsConfig({ MODELS_DIR: '/nonexistent/models' }));
    const status = await registry.probe();
    // PocketSphinx is an OS package: available where it is installed.
    const pocketsphinx = missingPocketSphinx(POCKETSPHINX_DEFAULTS) ? 'unavailable' : 'available';
    expect(status.map((s) => [s.capability, s.provider, s.kind, s.state])).toEqual([
      ['text_reader', 'paddleocr-v4', 'bundled', 'available'],
      ['object_detector', 'centernet-coco', 'bundled', 'available'],
      ['face_detector', 'blazeface', 'bundled', 'available'],
      ['face_embedder', 'face-api-resnet', 'bundled', 'available'],
      ['visual_embedder', 'clip', 'downloadable', 'unavailable'],
      ['audio_embedder', 'clap', 'downloadable', 'unavailable'],
      ['speech_recognizer', 'whisper', 'downloadable', 'unavailable'],
      ['speech_recognizer', 'pocketsphinx', 'bundled', pocketsphinx],
    ]);
  });
});

describe('loadModelsConfig', () => {
  it.each([
    [
      {},
      {
        modelsDir: './models',
        allowDownload: false,
        clipModel: 'Xenova/clip-vit-base-patch32',
        clapModel: 'Xenova/clap-htsat-unfused',
        whisperModel: 'Xenova/whisper-tiny',
        visionThreads: 3,
        pocketsphinx: POCKETSPHINX_DEFAULTS,
      },
    ],
    [
      {
        MODELS_DIR: '/srv/models',
        MODELS_ALLOW_DOWNLOAD: 'true',
        MODELS_CLIP: 'me/clip',
        MODELS_CLAP: 'me/clap',
        MODELS_WHISPER: 'me/whisper',
        MODELS_POCKETSPHINX: '/opt/ps/bin/pocketsphinx_continuous',
        MODELS_POCKETSPHINX_MODEL: '/opt/ps/en-us',
        MODELS_SPEECH_PROCESSES: '4',
        MODELS_VISION_THREADS: '0',
      },
      {
        modelsDir: '/srv/models',
        allowDownload: true,
        clipModel: 'me/clip',
        clapModel: 'me/clap',
        whisperModel: 'me/whisper',
        visionThreads: 0,
        pocketsphinx: { binary: '/opt/ps/bin/pocketsphinx_continuous', modelDir: '/opt/ps/en-us', processes: 4 },
      },
    ],
    [
      { MODELS_POCKETSPHINX: 'off' },
      {
        modelsDir: './models',
        allowDownload: false,
        clipModel: 'Xenova/clip-vit-base-patch32',
        clapModel: 'Xenova/clap-htsat-unfused',
        whisperModel: 'Xenova/whisper-tiny',
        visionThreads: 3,
        pocketsphinx: undefined,
      },
    ],
  ])('%p', (env, expected) => {
    expect(loadModelsConfig(env)).toEqual(expected);
  });

  it.each([
    { MODELS_ALLOW_DOWNLOAD: 'perhaps' },
    { MODELS_SPEECH_PROCESSES: '0' },
    { MODELS_SPEECH_PROCESSES: 'two' },
    { MODELS_VISION_THREADS: '4' },
  ])('rejects %p', (env) => {
    expect(() => loadModelsConfig(env)).toThrow(ConfigError);
  });
});

describe('withoutPaths', () => {
  it.each([
    ['Load model from /srv/models/Xenova/clip/onnx/model.onnx failed', 'Load model from model.onnx failed'],
    [
      "ENOENT: no such file or directory, open '/data/models/Xenova/whisper-tiny/config.json'",
      "ENOENT: no such file or directory, open 'config.json'",
    ],
    ['cannot read C:\\models\\clip\\model.onnx', 'cannot read model.onnx'],
    ['two: /a/b/c.onnx and /d/e/', 'two: c.onnx and '],
    // Not paths: a URL, a model id, a ratio, a lone root-level name.
    [
      'fetch https://huggingface.co/Xenova/clip/resolve/main/config.json failed',
      'fetch https://huggingface.co/Xenova/clip/resolve/main/config.json failed',
    ],
    ['Xenova/clip-vit-base-patch32 lacks onnx/model.onnx', 'Xenova/clip-vit-base-patch32 lacks onnx/model.onnx'],
    ['16/9 and /tmp', '16/9 and /tmp'],
  ])('%s', (message, expected) => {
    expect(withoutPaths(message)).toBe(expected);
  });
});

/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { clapProvider, ModelRegistry, poolNormalised, windowStarts, type AudioEmbedder, type ModelsConfig } from '../src';
import { transformers } from '../src/hf/transformers';
import { makeTinyModels, type TinyModels } from './helpers/tiny-models';

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/** `seconds` of a sine at `hz`, mono at `rate`. */
function tone(hz: number, seconds: number, rate = 48_000): Float32Array {
  return Float32Array.from({ length: Math.round(seconds * rate) }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate));
}

/** White-ish noise from a fixed seed. */
function noise(seconds: number, rate = 48_000): Float32Array {
  let state = 12345;
  return Float32Array.from({ length: Math.round(seconds * rate) }, () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return (state / 0x7fffffff - 0.5) * 0.8;
  });
}

describe('CLAP audio embedder (transformers.js)', () => {
  let tiny: TinyModels;
  let registry: ModelRegistry;
  let clap: AudioEmbedder;

  beforeAll(async () => {
    tiny = await makeTinyModels();
    const config: ModelsConfig = {
      modelsDir: tiny.dir,
      allowDownload: false,
      clipModel: 'absent/clip',
      clapModel: tiny.ids.clap,
      whisperModel: 'absent/whisper',
    };
    registry = new ModelRegistry([clapProvider(config)]);
    clap = await registry.get('audio_embedder');
  }, 60_000);

  afterAll(async () => {
    await registry.dispose();
    await tiny.remove();
  });

  it('loads the generated model from MODELS_DIR, with the sample rate its preprocessor asks for', () => {
    expect(registry.status()).toEqual([
      { capability: 'audio_embedder', provider: 'clap', model: tiny.ids.clap, kind: 'downloadable', state: 'loaded' },
    ]);
    expect(clap.dimensions).toBe(8);
    expect(clap.sampleRate).toBe(48_000);
  });

  it('prepares audio as the model expects: log-mel frames of 64 bins, one every 10 ms at 48 kHz', async () => {
    // The provider hands the samples to the model's own feature extractor (preprocessor_config.json).
    const lib = await transformers({ modelsDir: tiny.dir, allowDownload: false, clipModel: 'x', whisperModel: 'y' });
    const extractor = await lib.AutoFeatureExtractor.from_pretrained(tiny.ids.clap!);
    const { input_features } = (await extractor(tone(440, 1))) as { input_features: { dims: number[]; data: Float32Array } };
    expect(input_features.dims).toEqual([1, 1, 101, 64]);
    // dB values of a loud tone: finite, and not all alike.
    expect(input_features.data.every(Number.isFinite)).toBe(true);
    expect(Math.max(...input_features.data) - Math.min(...input_features.data)).toBeGreaterThan(10);
  });

  it('embeds sounds and text as unit vectors of the model’s size; different sounds differ', async () => {
    const vectors = [
      await clap.embedAudio(tone(440, 0.5)),
      await clap.embedAudio(noise(0.5)),
      await clap.embedAudio(tone(440, 3.5)),
      await clap.embedText('a dog barking'),
    ];
    for (const v of vectors) {
      expect(v).toHaveLength(8);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(dot(vectors[0]!, vectors[1]!)).toBeLessThan(0.9999);
  });

  it('is deterministic on audio longer than its window (whole windows pooled, no random crop)', async () => {
    const long = noise(3.6);
    const a = await clap.embedAudio(long);
    const b = await clap.embedAudio(long);
    expect(Array.from(a)).toEqual(Array.from(b));
    // A steady tone looks the same in every window: pooling keeps its direction.
    expect(dot(await clap.embedAudio(tone(440, 3)), await clap.embedAudio(tone(440, 1)))).toBeGreaterThan(0.999);
  });

  it('refuses empty audio', async () => {
    await expect(clap.embedAudio(new Float32Array(0))).rejects.toThrow(/no audio/);
  });
});

describe('CLAP when the model is absent', () => {
  it('is unavailable, and says which files are missing where', async () => {
    const config: ModelsConfig = { modelsDir: '/nonexistent/models', allowDownload: false, clipModel: 'x', whisperModel: 'y' };
    const registry = new ModelRegistry([clapProvider(config)]);
    const [status] = await registry.probe();
    expect(status).toMatchObject({
      capability: 'audio_embedder',
      provider: 'clap',
      model: 'Xenova/clap-htsat-unfused',
      state: 'unavailable',
    });
    expect(status?.reason).toMatch(/CLAP model Xenova\/clap-htsat-unfused is not in MODELS_DIR .*onnx\/audio_model\.onnx/);
    await expect(registry.get('audio_embedder')).rejects.toMatchObject({ code: 'model_unavailable' });
  });
});

describe('CLAP windows and pooling', () => {
  it.each([
    [100, 480, [0]],
    [480, 480, [0]],
    [960, 480, [0, 480]],
    [1000, 480, [0, 480]], // a 40-sample tail is left out
    [1100, 480, [0, 480, 620]], // a 140-sample tail: a last window ending with the audio
  ])('%d samples in windows of %d start at %j', (total, length, starts) => {
    expect(windowStarts(total, length)).toEqual(starts);
  });

  it('pools unit vectors into their normalised mean', () => {
    const pooled = poolNormalised([Float32Array.from([1, 0]), Float32Array.from([0, 1])]);
    expect(Array.from(pooled).map((x) => Math.round(x * 1e6) / 1e6)).toEqual([0.707107, 0.707107]);
  });
});

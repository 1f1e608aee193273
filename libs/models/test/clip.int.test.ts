/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { clipProvider, ModelRegistry, type ModelsConfig, type VisualEmbedder } from '../src';
import { renderTextFrame } from './helpers/frames';
import { faceCrop } from './helpers/photos';
import { makeTinyModels, type TinyModels } from './helpers/tiny-models';

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('CLIP visual embedder (transformers.js)', () => {
  let tiny: TinyModels;
  let registry: ModelRegistry;
  let clip: VisualEmbedder;

  beforeAll(async () => {
    tiny = await makeTinyModels();
    const config: ModelsConfig = { modelsDir: tiny.dir, allowDownload: false, clipModel: tiny.ids.clip, whisperModel: 'absent/whisper' };
    registry = new ModelRegistry([clipProvider(config)]);
    clip = await registry.get('visual_embedder');
  }, 60_000);

  afterAll(async () => {
    await registry.dispose();
    await tiny.remove();
  });

  it('loads the generated model from MODELS_DIR and reports it', () => {
    expect(registry.status()).toEqual([
      { capability: 'visual_embedder', provider: 'clip', model: tiny.ids.clip, kind: 'downloadable', state: 'loaded' },
    ]);
    expect(clip.dimensions).toBe(8);
  });

  it('embeds images and text as unit vectors of the model’s size', async () => {
    const vectors = [
      await clip.embedImage((await faceCrop()).image),
      await clip.embedImage(await renderTextFrame(1280, 720, [{ text: 'hello', x: 100, y: 300, size: 80 }])),
      await clip.embedText('a photo of a man'),
      await clip.embedText('a photo of a man wearing a hat, smiling at the camera'),
    ];
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(8);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    // Different inputs, different vectors (random weights still separate them).
    expect(dot(vectors[0]!, vectors[1]!)).toBeLessThan(0.9999);
    expect(dot(vectors[2]!, vectors[3]!)).toBeLessThan(0.9999);
  });

  it('is deterministic: the same input gives the same vector', async () => {
    const a = await clip.embedText('Lisbon at night');
    const b = await clip.embedText('Lisbon at night');
    expect(Array.from(a)).toEqual(Array.from(b));
  });
});

describe('CLIP when the model is absent', () => {
  it('reports it unavailable with the model and the missing files (not the folder), and callers get undefined', async () => {
    const config: ModelsConfig = {
      modelsDir: '/nonexistent/models',
      allowDownload: false,
      clipModel: 'Xenova/clip-vit-base-patch32',
      whisperModel: 'x',
    };
    const registry = new ModelRegistry([clipProvider(config)]);
    const [status] = await registry.probe();
    expect(status).toMatchObject({ capability: 'visual_embedder', provider: 'clip', state: 'unavailable' });
    expect(status!.reason).toMatch(
      /CLIP model Xenova\/clip-vit-base-patch32 is not in MODELS_DIR \(its folder Xenova\/clip-vit-base-patch32\/ lacks config\.json, .*onnx\/vision_model\.onnx\)/,
    );
    // The reason reaches API users (a task's skipped extractors): no internal path.
    expect(status!.reason).not.toContain('/nonexistent');
    expect(status!.reason).toMatch(/MODELS_ALLOW_DOWNLOAD=true/);
    expect(await registry.find('visual_embedder')).toBeUndefined();
    await expect(registry.get('visual_embedder')).rejects.toMatchObject({ code: 'model_unavailable', httpStatus: 503 });
  });

  it('reports a model whose files are broken as unavailable after a failed load, without retrying', async () => {
    const tiny = await makeTinyModels();
    try {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(`${tiny.dir}/${tiny.ids.clip}/onnx/vision_model.onnx`, 'not a model');
      const config: ModelsConfig = { modelsDir: tiny.dir, allowDownload: false, clipModel: tiny.ids.clip, whisperModel: 'x' };
      const registry = new ModelRegistry([clipProvider(config)]);
      expect(await registry.find('visual_embedder')).toBeUndefined();
      expect(registry.status()[0]).toMatchObject({ state: 'unavailable', reason: expect.stringMatching(/^failed to load: /) });
      expect(registry.status()[0]!.reason).not.toContain(tiny.dir);
    } finally {
      await tiny.remove();
    }
  });
});

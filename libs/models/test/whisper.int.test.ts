/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createModelRegistry,
  ModelRegistry,
  POCKETSPHINX_DEFAULTS,
  WhisperRecognizer,
  whisperProvider,
  type ModelsConfig,
  type SpeechRecognizer,
} from '../src';
import { makeTinyModels, type TinyModels } from './helpers/tiny-models';
import { wav } from './helpers/wav';

/** A tone with a pause, 16 kHz mono: the tiny model's transcript does not depend on it. */
const tone = (seconds: number): Float32Array =>
  Float32Array.from({ length: seconds * 16_000 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 220 * i) / 16_000));

describe('Whisper speech recogniser (transformers.js)', () => {
  let tiny: TinyModels;
  let registry: ModelRegistry;
  let whisper: SpeechRecognizer;

  beforeAll(async () => {
    tiny = await makeTinyModels();
    const config: ModelsConfig = { modelsDir: tiny.dir, allowDownload: false, clipModel: 'absent/clip', whisperModel: tiny.ids.whisper! };
    registry = new ModelRegistry([whisperProvider(config)]);
    whisper = await registry.get('speech_recognizer');
  }, 60_000);

  afterAll(async () => {
    await registry.dispose();
    await tiny.remove();
  });

  it('runs the encoder and the decoder through generation to timed segments', async () => {
    // The generated decoder plants "<|0.00|> blacksmith<|1.00|>" then end-of-text.
    // An English-only checkpoint: its lines say English, in the shape PocketSphinx's have too.
    expect(await whisper.transcribe(tone(5))).toEqual([{ start: 0, end: 1, text: 'blacksmith', language: 'en' }]);
    expect(whisper.languages).toEqual(['en']);
  });

  it('is chosen before the bundled PocketSphinx when its files are in MODELS_DIR', async () => {
    const config: ModelsConfig = {
      modelsDir: tiny.dir,
      allowDownload: false,
      clipModel: 'absent/clip',
      whisperModel: tiny.ids.whisper!,
      pocketsphinx: POCKETSPHINX_DEFAULTS,
    };
    const both = createModelRegistry(config);
    try {
      expect(await both.find('speech_recognizer')).toBeInstanceOf(WhisperRecognizer);
      expect(
        both
          .status()
          .filter((s) => s.capability === 'speech_recognizer')
          .map((s) => [s.provider, s.state]),
      ).toEqual([
        ['whisper', 'loaded'],
        // Never loaded: the first provider that loads serves the capability.
        ['pocketsphinx', 'available'],
      ]);
    } finally {
      await both.dispose();
    }
  });

  it('reads a 16 kHz WAV file by path', async () => {
    const file = join(tiny.dir, 'speech.wav');
    await writeFile(file, wav(tone(3), 16_000, 1));
    expect(await whisper.transcribe(file)).toEqual([{ start: 0, end: 1, text: 'blacksmith', language: 'en' }]);
  });

  it('ignores a language on an English-only model instead of failing', async () => {
    expect(await whisper.transcribe(tone(2), { language: 'fr' })).toHaveLength(1);
  });

  it('returns nothing for no audio', async () => {
    expect(await whisper.transcribe(new Float32Array(0))).toEqual([]);
  });

  it('rejects a WAV at the wrong sample rate with the fix in the message', async () => {
    const file = join(tiny.dir, 'hifi.wav');
    await writeFile(file, wav(tone(1), 44_100, 2));
    await expect(whisper.transcribe(file)).rejects.toThrow(/44100 Hz; 16000 Hz is needed \(resample with ffmpeg -ar 16000\)/);
  });
});

describe('Whisper when the model is absent', () => {
  it('is reported unavailable with a clear reason', async () => {
    const config: ModelsConfig = {
      modelsDir: '/nonexistent/models',
      allowDownload: false,
      clipModel: 'x',
      whisperModel: 'Xenova/whisper-tiny',
    };
    const registry = new ModelRegistry([whisperProvider(config)]);
    expect(await registry.find('speech_recognizer')).toBeUndefined();
    expect(registry.status()[0]).toMatchObject({
      provider: 'whisper',
      state: 'unavailable',
      reason: expect.stringMatching(
        /^Whisper model Xenova\/whisper-tiny is not in MODELS_DIR \(its folder Xenova\/whisper-tiny\/ lacks config\.json, .*onnx\/decoder_model_merged\.onnx\)/,
      ),
    });
    expect(registry.status()[0]!.reason).not.toContain('/nonexistent');
  });
});

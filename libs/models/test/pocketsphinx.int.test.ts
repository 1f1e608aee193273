import { labelsFound, speechFixture, speechFixtureWav, type SpeechFixture } from '@vus/testing';
import {
  createModelRegistry,
  missingPocketSphinx,
  ModelRegistry,
  POCKETSPHINX_DEFAULTS,
  pocketSphinxProvider,
  PocketSphinxRecognizer,
  readWav,
  SPEECH_SAMPLE_RATE,
  type SpeechSegment,
} from '../src';

/** Every speech provider returns lines of this shape (Whisper's test checks the same keys). */
const SEGMENT_KEYS = ['end', 'language', 'start', 'text'];

describe('PocketSphinx where it is not installed', () => {
  it.each([
    [
      'no binary',
      { ...POCKETSPHINX_DEFAULTS, binary: '/nonexistent/pocketsphinx_continuous' },
      /^the speech recogniser is not installed: pocketsphinx_continuous was not found \(install the Debian packages pocketsphinx pocketsphinx-en-us\)$/,
    ],
    ['a binary not on PATH', { ...POCKETSPHINX_DEFAULTS, binary: 'no-such-recogniser-here' }, /no-such-recogniser-here was not found/],
    [
      'no model',
      { ...POCKETSPHINX_DEFAULTS, binary: process.execPath, modelDir: '/nonexistent/model' },
      /^the speech model is not installed \(install the Debian package pocketsphinx-en-us, or set MODELS_POCKETSPHINX_MODEL\)$/,
    ],
  ])('%s: unavailable, with the packages to install and no path', async (_name, config, reason) => {
    const registry = new ModelRegistry([pocketSphinxProvider(config)]);
    expect(await registry.find('speech_recognizer')).toBeUndefined();
    const [status] = registry.status();
    expect(status).toMatchObject({ capability: 'speech_recognizer', provider: 'pocketsphinx', kind: 'bundled', state: 'unavailable' });
    expect(status?.reason).toMatch(reason);
    expect(status?.reason).not.toContain('/nonexistent');
  });

  it('is off when the configuration leaves it out', async () => {
    const registry = createModelRegistry({
      modelsDir: '/nonexistent/models',
      allowDownload: false,
      clipModel: 'x/clip',
      whisperModel: 'x/whisper',
    });
    expect(await registry.find('speech_recognizer')).toBeUndefined();
    expect((await registry.probe()).find((s) => s.provider === 'pocketsphinx')).toMatchObject({
      state: 'unavailable',
      reason: 'turned off (MODELS_POCKETSPHINX=off)',
    });
  });
});

const missing = missingPocketSphinx(POCKETSPHINX_DEFAULTS);

if (missing) {
  // One line in the run's output says why the real-speech tests did not run.
  it.skip(`PocketSphinx on real speech: skipped, ${missing}`, () => undefined);
} else {
  describe('PocketSphinx on real speech (the official SDK example video)', () => {
    let fixture: SpeechFixture;
    let samples: Float32Array;
    let recognizer: PocketSphinxRecognizer;

    beforeAll(async () => {
      fixture = speechFixture('twelvelabs-example');
      samples = await readWav(await speechFixtureWav(fixture));
      recognizer = new PocketSphinxRecognizer(POCKETSPHINX_DEFAULTS);
    }, 120_000);

    it('is the speech recogniser of the default registry when no Whisper is in MODELS_DIR', async () => {
      const registry = createModelRegistry({
        modelsDir: '/nonexistent/models',
        allowDownload: false,
        clipModel: 'x/clip',
        whisperModel: 'x/whisper',
        pocketsphinx: POCKETSPHINX_DEFAULTS,
      });
      expect(await registry.find('speech_recognizer')).toBeInstanceOf(PocketSphinxRecognizer);
      expect(
        registry
          .status()
          .filter((s) => s.capability === 'speech_recognizer')
          .map((s) => [s.provider, s.state]),
      ).toEqual([
        ['whisper', 'unavailable'],
        ['pocketsphinx', 'loaded'],
      ]);
    });

    it('finds every labelled key word within 1.5 s of its time, in English lines of the common shape', async () => {
      const lines = await recognizer.transcribe(samples);
      expect(labelsFound(lines, fixture.labels)).toEqual(fixture.labels);
      for (const line of lines) {
        expect(Object.keys(line).sort()).toEqual(SEGMENT_KEYS);
        expect(line.language).toBe('en');
        expect(line.end).toBeGreaterThanOrEqual(line.start);
      }
      expect(lines.map((l) => l.start)).toEqual([...lines.map((l) => l.start)].sort((a, b) => a - b));
    }, 600_000);

    it('reads only speech: nothing is made up in a long silence, and words after it keep their times', async () => {
      // 0–14 s of the clip, 30 s of silence, then 50–56 s of the clip ("carcinogen" at 51.47 s → 45.47 s).
      const at = (sec: number) => Math.round(sec * SPEECH_SAMPLE_RATE);
      const spliced = new Float32Array(at(50));
      spliced.set(samples.subarray(0, at(14)), 0);
      spliced.set(samples.subarray(at(50), at(56)), at(44));
      const lines: SpeechSegment[] = await recognizer.transcribe(spliced);
      const moved = fixture.labels
        .filter((l) => l.time < 13 || (l.time > 50 && l.time < 55))
        .map((l) => ({ ...l, time: l.time < 13 ? l.time : l.time - 6 }));
      expect(moved).toEqual([
        { words: 'environmental', time: 8.57 },
        { words: 'train crash', time: 10.93 },
        { words: 'carcinogen', time: expect.closeTo(45.47, 5) },
      ]);
      expect(labelsFound(lines, moved)).toEqual(moved);
      expect(lines.filter((l) => l.end > 14.5 && l.start < 43.5)).toEqual([]);
    }, 300_000);

    it('returns nothing for silence without starting a recogniser', async () => {
      const broken = new PocketSphinxRecognizer({ ...POCKETSPHINX_DEFAULTS, binary: '/nonexistent/recogniser' });
      expect(await broken.transcribe(new Float32Array(5 * SPEECH_SAMPLE_RATE))).toEqual([]);
    });

    it('stops when asked', async () => {
      const controller = new AbortController();
      const running = recognizer.transcribe(samples.subarray(0, 30 * SPEECH_SAMPLE_RATE), { signal: controller.signal });
      setTimeout(() => controller.abort(), 200);
      await expect(running).rejects.toThrow(/speech recognition was cancelled/);
    });
  });
}

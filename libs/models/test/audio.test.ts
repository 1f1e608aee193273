import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWav, memorySamples, openWavSamples } from '../src';
import { wav } from './helpers/wav';

describe('decodeWav', () => {
  it('decodes 16-bit PCM and averages channels to mono', () => {
    const samples = Float32Array.from([0, 0.5, -0.5, 1]);
    const mono = decodeWav(wav(samples, 16_000, 2));
    expect(Array.from(mono).map((v) => Math.round(v * 1000) / 1000)).toEqual([0, 0.5, -0.5, 1]);
  });

  it('decodes 32-bit float samples', () => {
    const body = Buffer.alloc(8);
    body.writeFloatLE(0.25, 0);
    body.writeFloatLE(-0.75, 4);
    const header = wav(new Float32Array(0), 16_000, 1);
    header.writeUInt16LE(3, 20); // format: IEEE float
    header.writeUInt16LE(32, 34);
    header.writeUInt32LE(8, 40);
    expect(Array.from(decodeWav(Buffer.concat([header, body])))).toEqual([0.25, -0.75]);
  });

  it.each<[string, Buffer, RegExp]>([
    ['random bytes', Buffer.from('definitely not audio'), /not a WAV file/],
    ['a header without data', wav(new Float32Array(0), 16_000, 1).subarray(0, 36), /no data chunk/],
    ['the wrong rate', wav(new Float32Array(4), 8_000, 1), /8000 Hz; 16000 Hz is needed/],
  ])('rejects %s', (_name, bytes, message) => {
    expect(() => decodeWav(bytes)).toThrow(message);
  });
});

describe('openWavSamples', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vus-wav-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function file(name: string, bytes: Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  }

  const samples = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i / 7) * 0.8);

  it.each<[string, number, number, number]>([
    ['the start', 0, 10, 10],
    ['a middle stretch', 333, 480, 480],
    ['past the end: cut to the track', 990, 480, 10],
    ['from beyond the end: nothing', 1000, 5, 0],
    ['a negative start reads from 0', -5, 3, 3],
  ])(
    'reads any stretch as decodeWav decodes it and as memorySamples reads it (%s), stereo averaged to mono',
    async (_name, start, count, expected) => {
      const bytes = wav(samples, 16_000, 2);
      const source = await openWavSamples(await file(`s${start}.wav`, bytes));
      try {
        expect(source.length).toBe(1000);
        const whole = decodeWav(bytes);
        const from = Math.max(0, start);
        const read = await source.read(start, count);
        expect(read.length).toBe(expected);
        expect(Array.from(read)).toEqual(Array.from(whole.subarray(from, from + expected)));
        // Samples in memory read alike.
        expect(Array.from(await memorySamples(whole).read(start, count))).toEqual(Array.from(read));
      } finally {
        await source.close();
      }
    },
  );

  it.each<[string, Buffer, RegExp]>([
    ['random bytes', Buffer.from('definitely not audio'), /not a WAV file/],
    ['a header without data', wav(new Float32Array(0), 16_000, 1).subarray(0, 36), /no data chunk/],
    ['the wrong rate', wav(new Float32Array(4), 8_000, 1), /8000 Hz; 16000 Hz is needed/],
  ])('rejects %s as decodeWav does', async (name, bytes, message) => {
    await expect(openWavSamples(await file(`${name}.wav`, bytes))).rejects.toThrow(message);
  });
});

import { decodeWav } from '../src';
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

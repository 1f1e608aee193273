import { readFile } from 'node:fs/promises';

/** The sample rate every speech model here expects (what libs/media's audio extraction writes). */
export const SPEECH_SAMPLE_RATE = 16_000;

/**
 * Decodes a PCM WAV file (8/16/24/32-bit integer or 32-bit float, any channel count) into mono
 * samples in -1…1. Throws when it is not a WAV or not at `expectedRate`.
 */
export function decodeWav(bytes: Buffer, expectedRate = SPEECH_SAMPLE_RATE): Float32Array {
  if (bytes.length < 12 || bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a WAV file (no RIFF/WAVE header)');
  }
  let format: { code: number; channels: number; rate: number; bits: number } | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      let code = bytes.readUInt16LE(body);
      // WAVE_FORMAT_EXTENSIBLE keeps the real format code at the start of its sub-format GUID.
      if (code === 0xfffe && size >= 26) code = bytes.readUInt16LE(body + 24);
      format = { code, channels: bytes.readUInt16LE(body + 2), rate: bytes.readUInt32LE(body + 4), bits: bytes.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!format) throw new Error('WAV data chunk before its fmt chunk');
      // A streamed WAV may say 0 or 0xFFFFFFFF: read to the end of the file then.
      const end = size === 0 || size === 0xffffffff ? bytes.length : Math.min(bytes.length, body + size);
      return toMono(bytes.subarray(body, end), format, expectedRate);
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}

export async function readWav(path: string, expectedRate = SPEECH_SAMPLE_RATE): Promise<Float32Array> {
  return decodeWav(await readFile(path), expectedRate);
}

function toMono(data: Buffer, format: { code: number; channels: number; rate: number; bits: number }, expectedRate: number): Float32Array {
  const { code, channels, rate, bits } = format;
  if (rate !== expectedRate) throw new Error(`WAV is ${rate} Hz; ${expectedRate} Hz is needed (resample with ffmpeg -ar ${expectedRate})`);
  if (channels < 1) throw new Error('WAV has no channels');
  const read = sampleReader(code, bits);
  const width = bits / 8;
  const frames = Math.floor(data.length / (width * channels));
  const out = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += read(data, (f * channels + c) * width);
    out[f] = sum / channels;
  }
  return out;
}

function sampleReader(code: number, bits: number): (data: Buffer, at: number) => number {
  if (code === 3 && bits === 32) return (d, at) => d.readFloatLE(at);
  if (code === 1 && bits === 8) return (d, at) => ((d[at] ?? 128) - 128) / 128;
  if (code === 1 && bits === 16) return (d, at) => d.readInt16LE(at) / 32768;
  if (code === 1 && bits === 24) return (d, at) => d.readIntLE(at, 3) / 8388608;
  if (code === 1 && bits === 32) return (d, at) => d.readInt32LE(at) / 2147483648;
  throw new Error(`unsupported WAV sample format (format ${code}, ${bits} bits)`);
}

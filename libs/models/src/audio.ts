import { open, readFile } from 'node:fs/promises';

/** The sample rate every speech model here expects (what libs/media's audio extraction writes). */
export const SPEECH_SAMPLE_RATE = 16_000;

/**
 * Decodes a PCM WAV file (8/16/24/32-bit integer or 32-bit float, any channel count) into mono
 * samples in -1…1. Throws when it is not a WAV or not at `expectedRate`.
 */
export function decodeWav(bytes: Buffer, expectedRate = SPEECH_SAMPLE_RATE): Float32Array {
  const { format, dataOffset, dataEnd } = locateWavData(bytes, bytes.length, expectedRate);
  return toMono(bytes.subarray(dataOffset, dataEnd), format);
}

export async function readWav(path: string, expectedRate = SPEECH_SAMPLE_RATE): Promise<Float32Array> {
  return decodeWav(await readFile(path), expectedRate);
}

/**
 * Mono samples in -1…1 read a stretch at a time, so that a long track is never held whole (issue
 * 30: an hour of 16 kHz audio is 230 MB as samples). From memory or from a WAV file alike.
 */
export interface SampleSource {
  readonly sampleRate: number;
  /** Samples in the whole track. */
  readonly length: number;
  /** The samples [start, start + count), cut to the track. */
  read(start: number, count: number): Promise<Float32Array>;
  close(): Promise<void>;
}

/** Samples already in memory, as a SampleSource. */
export function memorySamples(samples: Float32Array, sampleRate = SPEECH_SAMPLE_RATE): SampleSource {
  return {
    sampleRate,
    length: samples.length,
    // Clamped as a file's reads are: a negative start would count from the end in slice.
    read: async (start, count) => samples.slice(Math.max(0, start), Math.max(0, start) + Math.max(0, count)),
    close: async () => undefined,
  };
}

/**
 * A PCM WAV file (the formats decodeWav reads) as a SampleSource: its header is read now, its
 * samples when asked for. Throws as decodeWav does when it is not a WAV or not at `expectedRate`.
 */
export async function openWavSamples(path: string, expectedRate = SPEECH_SAMPLE_RATE): Promise<SampleSource> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, WAV_HEAD_BYTES));
    await handle.read(head, 0, head.length, 0);
    const { format, dataOffset, dataEnd } = locateWavData(head, size, expectedRate);
    const frameBytes = (format.bits / 8) * format.channels;
    const length = Math.floor((dataEnd - dataOffset) / frameBytes);
    return {
      sampleRate: format.rate,
      length,
      read: async (start, count) => {
        const first = Math.min(length, Math.max(0, start));
        const bytes = Buffer.alloc(Math.max(0, Math.min(length - first, count)) * frameBytes);
        await handle.read(bytes, 0, bytes.length, dataOffset + first * frameBytes);
        return toMono(bytes, format);
      },
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** How much of a WAV file is read to find its data chunk (ffmpeg puts a small LIST chunk before it). */
const WAV_HEAD_BYTES = 64 * 1024;

interface WavFormat {
  code: number;
  channels: number;
  rate: number;
  bits: number;
}

/**
 * The format and data bytes of a WAV file of `fileSize` bytes whose first bytes are `head`
 * (the whole file, or enough of it to reach the data chunk). Throws what decodeWav throws.
 */
function locateWavData(head: Buffer, fileSize: number, expectedRate: number): { format: WavFormat; dataOffset: number; dataEnd: number } {
  if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a WAV file (no RIFF/WAVE header)');
  }
  let format: WavFormat | undefined;
  let offset = 12;
  while (offset + 8 <= head.length) {
    const id = head.toString('ascii', offset, offset + 4);
    const size = head.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      let code = head.readUInt16LE(body);
      // WAVE_FORMAT_EXTENSIBLE keeps the real format code at the start of its sub-format GUID.
      if (code === 0xfffe && size >= 26) code = head.readUInt16LE(body + 24);
      format = { code, channels: head.readUInt16LE(body + 2), rate: head.readUInt32LE(body + 4), bits: head.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!format) throw new Error('WAV data chunk before its fmt chunk');
      checkFormat(format, expectedRate);
      // A streamed WAV may say 0 or 0xFFFFFFFF: read to the end of the file then.
      const dataEnd = size === 0 || size === 0xffffffff ? fileSize : Math.min(fileSize, body + size);
      return { format, dataOffset: body, dataEnd };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}

function checkFormat({ code, channels, rate, bits }: WavFormat, expectedRate: number): void {
  if (rate !== expectedRate) throw new Error(`WAV is ${rate} Hz; ${expectedRate} Hz is needed (resample with ffmpeg -ar ${expectedRate})`);
  if (channels < 1) throw new Error('WAV has no channels');
  sampleReader(code, bits);
}

/** Interleaved PCM frames → mono samples, each the mean of its channels. */
function toMono(data: Buffer, { code, channels, bits }: WavFormat): Float32Array {
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

import { open } from 'node:fs/promises';
import { MediaError } from './errors';
import { defaultTimeoutMs } from './frames';
import { classifyInputFailure, inputArguments } from './input';
import { probe as probeFile, type MediaProbe } from './probe';
import { runTool, type MediaRunOptions } from './run';

/** What speech recognisers expect: 16 kHz, mono, 16-bit PCM. */
export const SPEECH_SAMPLE_RATE = 16_000;

/** ffmpeg output arguments for the first audio track as speech recognisers expect it (16 kHz mono 16-bit PCM), before the format and file. */
export const SPEECH_AUDIO_OUTPUT: readonly string[] = [
  '-map',
  '0:a:0',
  '-vn',
  '-sn',
  '-ac',
  '1',
  '-ar',
  String(SPEECH_SAMPLE_RATE),
  '-c:a',
  'pcm_s16le',
];

export interface ExtractedAudio {
  /** The WAV file written (the caller owns it and deletes it). */
  path: string;
  sampleRate: number;
  channels: 1;
  durationSec: number;
}

/**
 * Writes the first audio track as a 16 kHz mono 16-bit WAV to `outPath`. Throws MediaError
 * `no_audio` (code `audio_file_broken`) when the file has no audio track.
 */
export async function extractAudio(
  file: string,
  outPath: string,
  options: MediaRunOptions & { probe?: MediaProbe } = {},
): Promise<ExtractedAudio> {
  const probed = options.probe ?? (await probeFile(file, options));
  await runTool(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      ...inputArguments(file, probed.demuxer),
      ...SPEECH_AUDIO_OUTPUT,
      '-map_metadata',
      '-1',
      '-bitexact',
      '-f',
      'wav',
      outPath,
    ],
    { timeoutMs: options.timeoutMs ?? defaultTimeoutMs(probed.durationSec), signal: options.signal },
    (stderr) =>
      /matches no streams|does not contain any stream/i.test(stderr)
        ? new MediaError('no_audio', 'The video has no audio track.', stderr)
        : classifyInputFailure(stderr),
  );
  const info = await readWavInfo(outPath);
  return { path: outPath, sampleRate: info.sampleRate, channels: 1, durationSec: info.durationSec };
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Byte offset of the first sample. */
  dataOffset: number;
  dataBytes: number;
  durationSec: number;
}

/** Reads a PCM WAV header (walking its chunks; ffmpeg may add LIST before data). */
export async function readWavInfo(path: string): Promise<WavInfo> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, 4096));
    await handle.read(head, 0, head.length, 0);
    return parseWavHeader(head, size);
  } finally {
    await handle.close();
  }
}

/** Pure part of readWavInfo: parses the header bytes of a file of `fileSize` bytes. */
export function parseWavHeader(head: Buffer, fileSize: number): WavInfo {
  if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') {
    throw new MediaError('corrupt', 'Not a WAV file.');
  }
  let offset = 12;
  let fmt: { channels: number; sampleRate: number; bitsPerSample: number } | undefined;
  while (offset + 8 <= head.length) {
    const id = head.toString('ascii', offset, offset + 4);
    const length = head.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      fmt = { channels: head.readUInt16LE(body + 2), sampleRate: head.readUInt32LE(body + 4), bitsPerSample: head.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!fmt) break;
      // Streams written to a pipe leave the length unset (0 or 0xFFFFFFFF): trust the file size then.
      const dataBytes = length > 0 && length !== 0xffffffff ? Math.min(length, fileSize - body) : fileSize - body;
      const bytesPerSecond = fmt.sampleRate * fmt.channels * (fmt.bitsPerSample / 8);
      return { ...fmt, dataOffset: body, dataBytes, durationSec: dataBytes / bytesPerSecond };
    }
    offset = body + length + (length % 2);
  }
  throw new MediaError('corrupt', 'The WAV file has no fmt/data chunk in its first 4 KB.');
}

/**
 * Reads a window of a 16-bit WAV as float samples in [-1, 1] (mono, or the first channel), as
 * Whisper wants them: read 30 s windows one by one instead of the whole file.
 */
export async function readWavSamples(path: string, startSec = 0, durationSec = Number.POSITIVE_INFINITY): Promise<Float32Array> {
  const info = await readWavInfo(path);
  if (info.bitsPerSample !== 16) throw new MediaError('tool_failed', `Expected 16-bit PCM, got ${info.bitsPerSample}-bit.`);
  const frameBytes = 2 * info.channels;
  const totalFrames = Math.floor(info.dataBytes / frameBytes);
  const first = Math.min(totalFrames, Math.max(0, Math.floor(startSec * info.sampleRate)));
  const count = Math.min(totalFrames - first, Math.floor(durationSec * info.sampleRate));
  const bytes = Buffer.alloc(Math.max(0, count) * frameBytes);
  const handle = await open(path, 'r');
  try {
    await handle.read(bytes, 0, bytes.length, info.dataOffset + first * frameBytes);
  } finally {
    await handle.close();
  }
  const samples = new Float32Array(Math.max(0, count));
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * frameBytes) / 32768;
  return samples;
}

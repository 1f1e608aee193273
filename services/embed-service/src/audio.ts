import { ApiError } from '@vus/core';
import { isMediaError, readWavInfo, readWavSamples, runFfmpeg, SPEECH_AUDIO_OUTPUT, SPEECH_SAMPLE_RATE } from '@vus/media';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Text formats ffmpeg would follow to other files (playlists, concat lists, DASH manifests): never opened. */
const LIST_FORMATS = /^\s*(?:#EXTM3U|ffconcat|<\?xml|<MPD)/i;

export interface DecodedAudio {
  /** Mono samples of the window asked for, at the rate asked for (16 kHz unless told). */
  samples: Float32Array;
  /** Seconds in the window. */
  durationSec: number;
}

/**
 * Decodes audio bytes (any format ffmpeg reads, or the audio track of a video) to mono 16 kHz
 * (or `sampleRate`: CLAP wants 48 kHz), from `startSec` for at most `maxSec`. Bytes that are not
 * audio are `audio_file_broken`; ffmpeg may only read the one local file (no playlist, no network).
 */
export async function decodeAudio(
  bytes: Buffer,
  startSec: number,
  maxSec: number,
  param: string,
  sampleRate: number = SPEECH_SAMPLE_RATE,
): Promise<DecodedAudio> {
  const dir = await mkdtemp(join(tmpdir(), 'vus-embed-audio-'));
  try {
    const input = join(dir, 'input');
    const output = join(dir, 'audio.wav');
    await writeFile(input, bytes);
    const { durationSec } = await decodeAudioFile(input, output, { startSec, maxSec, param, sampleRate, timeoutMs: 60_000 });
    return { samples: await readWavSamples(output), durationSec };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface DecodeAudioFileOptions {
  startSec?: number;
  maxSec?: number;
  /** The request field the audio came in, named in errors. */
  param: string;
  sampleRate?: number;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

/**
 * Writes the audio of a local file (any format ffmpeg reads as audio, or a video's audio track) as a
 * mono 16-bit WAV at `sampleRate` (16 kHz) to `output`; a file that is not audio, a playlist or a
 * manifest is `audio_file_broken`.
 */
export async function decodeAudioFile(input: string, output: string, options: DecodeAudioFileOptions): Promise<{ durationSec: number }> {
  const { param, startSec = 0 } = options;
  const broken = () => new ApiError('audio_file_broken', `The ${param} could not be read as audio.`, { param });
  const head = Buffer.alloc(64);
  const handle = await open(input, 'r');
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  if (LIST_FORMATS.test(head.toString('latin1'))) throw broken();
  try {
    await runFfmpeg(
      [
        '-protocol_whitelist',
        'file',
        '-ss',
        String(startSec),
        ...(options.maxSec === undefined ? [] : ['-t', String(options.maxSec)]),
        '-i',
        input,
        ...withSampleRate(SPEECH_AUDIO_OUTPUT, options.sampleRate ?? SPEECH_SAMPLE_RATE),
        '-f',
        'wav',
        output,
      ],
      { timeoutMs: options.timeoutMs ?? 30 * 60_000, ...(options.signal ? { signal: options.signal } : {}) },
    );
  } catch (error) {
    if (isMediaError(error) && (error.code === 'service_unavailable' || error.code === 'deadline_exceeded')) throw error;
    if (options.signal?.aborted) throw error;
    throw broken();
  }
  const info = await readWavInfo(output);
  if (info.durationSec <= 0) throw new ApiError('audio_file_broken', `The ${param} has no audio after ${startSec} s.`, { param });
  return { durationSec: info.durationSec };
}

/** ffmpeg output arguments with their `-ar` value replaced. */
function withSampleRate(args: readonly string[], rate: number): string[] {
  return args.map((arg, i) => (args[i - 1] === '-ar' ? String(rate) : arg));
}

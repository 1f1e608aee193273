/**
 * A media file's embeddings, per option and clip (embed tasks and synchronous video): its frames
 * for `visual`, its audio track for `audio` (what is said, and a sound cue) and `transcription`
 * (what is said). The evidence is gathered once; embedClips turns it into vectors and is pure.
 */
import type { BlobStore } from '@vus/blob';
import { ApiError } from '@vus/core';
import { openUrl, type FetchPolicy } from '@vus/fetch';
import { extractAudio, probe, readWavSamples, sampleFrames, type MediaProbe } from '@vus/media';
import { mergeConcepts, unionOfFrames, type ConceptBag, type ConceptEmbedder } from '@vus/models';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { decodeAudioFile } from './audio';
import {
  TASK_RULES,
  clipWindows,
  type EmbedOption,
  type EmbeddingType,
  type SegmentOption,
  type TaskOptions,
  type TaskResult,
  type TaskSegment,
  type TaskSource,
} from './tasks';

export interface TimedText {
  start: number;
  end: number;
  text: string;
}

/** What a range shows and sounds like, gathered once for every option. */
export interface RangeEvidence {
  /** Sampled frames as concepts, in time order (visual). */
  frames: readonly { time: number; bag: ConceptBag }[];
  /** What is said, in media time (audio, transcription). */
  speech: readonly TimedText[];
  /** The sound cue of each clip window of the range, in order (audio). */
  sounds: readonly ConceptBag[];
}

export interface ClipOptions {
  embeddingOptions: readonly EmbedOption[];
  /** Absent: separate. */
  embeddingTypes?: readonly EmbeddingType[] | undefined;
  scopes: readonly ('clip' | 'video')[];
  clipLength: number;
}

/** Seconds of audio transcribed at a time (about 38 MB of samples). */
const SPEECH_CHUNK_SEC = 600;

/**
 * Each option's clip vectors and, when asked, its `video` vector over the whole range. A clip's
 * visual is the union of its frames (or the nearest frame when none falls inside); its
 * transcription the words said during it; its audio those words and its sound cue. A fused vector
 * (embedding type fused) is of every option's concepts of the clip together.
 */
export function embedClips(
  evidence: RangeEvidence,
  range: { start: number; end: number },
  options: ClipOptions,
  concepts: { text(text: string): ConceptBag },
  embed: (bag: ConceptBag) => Float32Array,
): TaskSegment[] {
  const windows = clipWindows(range.start, range.end, options.clipLength);
  const nearest = (at: number) =>
    evidence.frames.reduce<{ time: number; bag: ConceptBag } | undefined>(
      (best, f) => (!best || Math.abs(f.time - at) < Math.abs(best.time - at) ? f : best),
      undefined,
    );
  const said = (from: number, to: number) =>
    concepts.text(
      evidence.speech
        .filter((s) => s.start < to && s.end > from)
        .map((s) => s.text)
        .join(' '),
    );
  const bagOf = (option: EmbedOption, window: { start: number; end: number }, index: number | 'all'): ConceptBag => {
    if (option === 'visual') {
      const inside = evidence.frames.filter((f) => f.time >= window.start && f.time < window.end);
      const chosen = inside.length > 0 ? inside : [nearest((window.start + window.end) / 2)].filter((f) => f !== undefined);
      return unionOfFrames(chosen.map((f) => f.bag));
    }
    const words = said(window.start, window.end);
    if (option === 'transcription') return words;
    const sounds = index === 'all' ? evidence.sounds : evidence.sounds.slice(index, index + 1);
    return mergeConcepts(words, unionOfFrames(sounds));
  };
  const fusedOf = (window: { start: number; end: number }, index: number | 'all'): ConceptBag =>
    options.embeddingOptions.reduce<ConceptBag>((all, option) => mergeConcepts(all, bagOf(option, window, index)), new Map());
  const types = options.embeddingTypes ?? ['separate'];
  const kinds: SegmentOption[] = [
    ...(types.includes('separate') ? options.embeddingOptions : []),
    ...(types.includes('fused') ? ['fused' as const] : []),
  ];
  const bagFor = (kind: SegmentOption, window: { start: number; end: number }, index: number | 'all') =>
    kind === 'fused' ? fusedOf(window, index) : bagOf(kind, window, index);
  const segments: TaskSegment[] = [];
  for (const option of kinds) {
    if (options.scopes.includes('clip'))
      windows.forEach((window, i) =>
        segments.push({ ...window, scope: 'clip', option, vector: Array.from(embed(bagFor(option, window, i))) }),
      );
    if (options.scopes.includes('video'))
      segments.push({ ...range, scope: 'video', option, vector: Array.from(embed(bagFor(option, range, 'all'))) });
  }
  return segments;
}

/** The range of the media a task covers: its offsets, within the media's duration. */
export function taskRange(options: Pick<TaskOptions, 'startSec' | 'endSec'>, durationSec: number): { start: number; end: number } {
  return { start: Math.min(options.startSec, durationSec), end: Math.min(options.endSec ?? durationSec, durationSec) };
}

/** The longest range embedded at once: an embed task's, or a synchronous request's (`use` says what to do instead). */
export interface DurationLimit {
  maxSec: number;
  /** Tasks are limited by the media's length; a synchronous request by the range it embeds. */
  of: 'media' | 'range';
  takes: string;
  use?: string;
}

export const TASK_DURATION_LIMIT: DurationLimit = { maxSec: TASK_RULES.maxDurationSec, of: 'media', takes: 'embed tasks' };

/** Why this media cannot be embedded (too long, or its start at or past the end); undefined: it can. */
export function rangeProblem(
  what: string,
  durationSec: number,
  options: Pick<TaskOptions, 'startSec' | 'endSec'>,
  limit: DurationLimit = TASK_DURATION_LIMIT,
): { code: 'parameter_invalid' | 'video_duration_too_long'; message: string } | undefined {
  const { start, end } = taskRange(options, durationSec);
  if (end <= start)
    return {
      code: 'parameter_invalid',
      message: `The start offset ${start} s is at or past the end of the ${durationSec.toFixed(1)} s ${what}.`,
    };
  const length = limit.of === 'media' ? durationSec : end - start;
  if (length > limit.maxSec)
    return {
      code: 'video_duration_too_long',
      message: `The ${what} is ${Math.round(length)} s long; ${limit.takes} take at most ${limit.maxSec} s.${limit.use ? ` ${limit.use}` : ''}`,
    };
  return undefined;
}

/** Copies a source to a local file (ffmpeg needs one): its URL through the SSRF guard, or the blob the gateway stored. */
export async function fetchMediaFile(
  source: TaskSource,
  file: string,
  deps: { blobs?: BlobStore | undefined; fetchPolicy: FetchPolicy },
  signal?: AbortSignal,
): Promise<void> {
  if (source.url) return pipeline(await openUrl(source.url, 'video_url', deps.fetchPolicy, signal), createWriteStream(file));
  if (!deps.blobs) throw new Error('no blob store is configured for uploaded media');
  await deps.blobs.download(source.blobKey ?? '', file);
}

/**
 * A local media file's embeddings (tasks and synchronous video): probed (video) or decoded (audio:
 * decoding is the check, its formats are not video containers), its range checked against the
 * limit, then each clip embedded per option. A range problem is returned: a task fails with it, a
 * request answers it.
 */
export async function embedMediaFile(
  file: string,
  options: TaskOptions & { embeddingOptions: EmbedOption[] },
  dimensions: number,
  deps: GatherDeps & { limit?: DurationLimit },
): Promise<{ problem: NonNullable<ReturnType<typeof rangeProblem>> } | { result: TaskResult }> {
  const what = options.inputType ?? 'video';
  const wav = join(deps.dir, 'audio.wav');
  const probed = what === 'audio' ? undefined : await probe(file, { signal: deps.signal });
  const durationSec = probed
    ? probed.durationSec
    : (await decodeAudioFile(file, wav, { param: 'audio.media_source', signal: deps.signal })).durationSec;
  const problem = rangeProblem(what, durationSec, options, deps.limit);
  if (problem) return { problem };
  const range = taskRange(options, durationSec);
  const evidence = probed ? await gatherEvidence(file, probed, range, options, deps) : await hearRange(wav, range, options, deps);
  const { embedder } = deps;
  const segments = embedClips(evidence, range, options, { text: (t) => embedder.textConcepts(t) }, (bag) =>
    embedder.embed(bag, dimensions),
  );
  return { result: { duration: range.end - range.start, segments } };
}

export interface GatherDeps {
  embedder: ConceptEmbedder;
  /** A scratch folder the caller owns and removes. */
  dir: string;
  signal?: AbortSignal | undefined;
}

/** Frames and, where an option needs it, the audio track of a range of a probed media file. */
export async function gatherEvidence(
  file: string,
  probed: MediaProbe,
  range: { start: number; end: number },
  options: ClipOptions,
  deps: GatherDeps,
): Promise<RangeEvidence> {
  const { embedder, signal } = deps;
  const wants = (option: EmbedOption) => options.embeddingOptions.includes(option);
  const frames: { time: number; bag: ConceptBag }[] = [];
  if (wants('visual')) {
    for await (const frame of sampleFrames(file, {
      fps: TASK_RULES.framesPerSecond,
      width: 640,
      startSec: range.start,
      durationSec: range.end - range.start,
      signal,
    })) {
      // A cancelled caller (or a passed deadline) stops the models too, not only ffmpeg.
      signal?.throwIfAborted();
      frames.push({ time: frame.timeSec, bag: await embedder.imageConcepts(frame.data) });
    }
  }
  if (!wants('audio') && !wants('transcription')) return { frames, speech: [], sounds: [] };
  // A video without an audio track is heard as silence, and nothing is said in it.
  if (!probed.hasAudio) {
    const silence = embedder.soundConcepts(new Float32Array(1));
    return { frames, speech: [], sounds: clipWindows(range.start, range.end, options.clipLength).map(() => silence) };
  }
  const wav = `${deps.dir}/audio.wav`;
  try {
    await extractAudio(file, wav, { probe: probed, signal });
    return { ...(await hearRange(wav, range, options, deps)), frames };
  } finally {
    await rm(wav, { force: true });
  }
}

/** What is said in a range of a WAV file (mono 16 kHz), and each clip's sound cue. */
export async function hearRange(
  wav: string,
  range: { start: number; end: number },
  options: ClipOptions,
  deps: Pick<GatherDeps, 'embedder' | 'signal'>,
): Promise<RangeEvidence> {
  const { embedder, signal } = deps;
  if (options.embeddingOptions.includes('transcription') && !(await embedder.canTranscribe()))
    throw new ApiError('not_implemented', 'Transcription embeddings need a speech recogniser, and none is installed on this server.', {
      param: 'embedding_option',
    });
  const speech: TimedText[] = [];
  for (let at = range.start; at < range.end; at += SPEECH_CHUNK_SEC) {
    signal?.throwIfAborted();
    const samples = await readWavSamples(wav, at, Math.min(SPEECH_CHUNK_SEC, range.end - at));
    for (const s of await embedder.transcribe(samples)) speech.push({ start: at + s.start, end: at + s.end, text: s.text });
  }
  const sounds: ConceptBag[] = [];
  for (const window of clipWindows(range.start, range.end, options.clipLength)) {
    signal?.throwIfAborted();
    sounds.push(embedder.soundConcepts(await readWavSamples(wav, window.start, window.end - window.start)));
  }
  return { frames: [], speech, sounds };
}

import { mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { MediaError } from './errors';
import { allowedDemuxer, inputArguments, refusalIn, refusedFormat } from './input';
import { runTool, type MediaRunOptions } from './run';

export interface VideoStreamInfo {
  codec: string;
  /** Display size: already swapped for a 90°/270° rotated phone video. */
  width: number;
  height: number;
  fps: number;
  /** ffprobe's pixel format (`yuv420p`, `yuv420p10le` …), when it names one. */
  pixelFormat?: string;
  /** Degrees a player turns the stored picture (phone videos); absent when upright. */
  rotation?: number;
  /** Frames are stored out of display order (B-frames, ffprobe's has_b_frames > 0); absent otherwise. */
  hasBFrames?: true;
}

export interface AudioStreamInfo {
  codec: string;
  sampleRate: number;
  channels: number;
}

export interface SubtitleTrack {
  /** The stream index in the file (what `-map 0:<index>` takes). */
  streamIndex: number;
  codec: string;
  /** Text tracks (srt, mov_text, webvtt, ass) can be read as cues; bitmap tracks (PGS, DVD) cannot. */
  isText: boolean;
  language?: string;
  title?: string;
}

/** What ffprobe found in a file. Everything comes from the content; the file name is never used. */
export interface MediaProbe {
  /** Container sniffed from the content: `mp4`, `mov`, `matroska`, `webm`, `avi`, `mpegts`, … */
  container: string;
  /**
   * The ffmpeg demuxer that read it (`mov`, `matroska`, `mpegts` …; one of VIDEO_DEMUXERS): every
   * later ffmpeg run on the file is pinned to it.
   */
  demuxer: string;
  durationSec: number;
  sizeBytes: number;
  video: VideoStreamInfo;
  /** The first audio stream, if any. */
  audio?: AudioStreamInfo;
  hasAudio: boolean;
  subtitles: SubtitleTrack[];
}

const TEXT_SUBTITLE_CODECS = new Set(['subrip', 'srt', 'mov_text', 'webvtt', 'ass', 'ssa', 'text', 'ttml']);

const numberish = z.union([z.number(), z.string()]).optional();
const ffprobeOutputSchema = z.object({
  format: z
    .object({
      format_name: z.string(),
      duration: numberish,
      size: numberish,
      tags: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  streams: z
    .array(
      z.object({
        index: z.number(),
        codec_type: z.string().optional(),
        codec_name: z.string().optional(),
        width: z.number().optional(),
        height: z.number().optional(),
        pix_fmt: z.string().optional(),
        has_b_frames: z.number().optional(),
        avg_frame_rate: z.string().optional(),
        r_frame_rate: z.string().optional(),
        sample_rate: numberish,
        channels: z.number().optional(),
        duration: numberish,
        disposition: z.record(z.string(), z.number()).optional(),
        tags: z.record(z.string(), z.string()).optional(),
        side_data_list: z.array(z.object({ rotation: z.number().optional() })).optional(),
      }),
    )
    .default([]),
});

export type FfprobeOutput = z.infer<typeof ffprobeOutputSchema>;

/**
 * Probes a media file. Throws a MediaError: `unrecognised` (not a media format), `not_a_container`
 * (a playlist, manifest, text or other format outside VIDEO_DEMUXERS: refused before anything it
 * names is opened), `corrupt` (a container that cannot be read), `not_a_video` (image, audio only),
 * `timeout`, `tool_missing`.
 */
export async function probe(file: string, options: MediaRunOptions = {}): Promise<MediaProbe> {
  const { size } = await stat(file);
  // ffprobe lets the file extension tip its format guess (random bytes named .mp4 "are" mp4).
  // Probing through an extension-less link makes the guess rest on the content alone.
  const dir = await mkdtemp(join(tmpdir(), 'vus-probe-'));
  try {
    const link = join(dir, 'input');
    await symlink(resolve(file), link);
    const json = await runTool(
      'ffprobe',
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', ...inputArguments(link)],
      { timeoutMs: options.timeoutMs ?? 30_000, signal: options.signal, maxOutputBytes: 8 * 1024 * 1024 },
      classifyProbeFailure,
    );
    return describeProbe(parseFfprobeJson(json.toString('utf8')), size);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * ffprobe names the demuxer (`[mov,mp4,… @ 0x…]`) in its error when it recognised the container but
 * could not read it; an error without one means no format matched the content at all.
 */
export function classifyProbeFailure(stderr: string): MediaError {
  const refused = refusalIn(stderr);
  if (refused) return refused;
  const demuxer = /\[([a-z0-9_,]+) @ 0x[0-9a-f]+\]/i.exec(stderr)?.[1];
  const lastLine = stderr.trim().split('\n').pop() ?? '';
  if (demuxer) {
    return new MediaError(
      'corrupt',
      `The video file is broken and cannot be read (${demuxer.split(',')[0]} container: ${stripToolNoise(stderr)}). Re-export or re-upload the complete file.`,
      stderr,
    );
  }
  return new MediaError(
    'unrecognised',
    `The file is not in a video format that can be read${lastLine.includes('Invalid data') ? '' : ` (${stripToolNoise(stderr)})`}. Upload a video file such as MP4, MOV, MKV or WebM.`,
    stderr,
  );
}

function stripToolNoise(stderr: string): string {
  const line = stderr
    .trim()
    .split('\n')
    .map((l) =>
      l
        .replace(/^\[[^\]]+\]\s*/, '')
        .replace(/^[^:]*input: /, '')
        .trim(),
    )
    .find((l) => l && !l.startsWith('Invalid data'));
  return line ?? 'unreadable data';
}

function parseFfprobeJson(text: string): FfprobeOutput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MediaError('tool_failed', 'ffprobe wrote output that is not JSON.', text.slice(0, 500));
  }
  const result = ffprobeOutputSchema.safeParse(parsed);
  if (!result.success) throw new MediaError('tool_failed', `ffprobe output has an unexpected shape: ${result.error.message}`);
  return result.data;
}

/** Turns ffprobe's JSON into a MediaProbe (pure; exported for tests). */
export function describeProbe(output: FfprobeOutput, sizeBytes: number): MediaProbe {
  const format = output.format;
  if (!format) throw new MediaError('unrecognised', 'The file is not in a video format that can be read.');
  const formatNames = format.format_name.split(',');
  const demuxer = allowedDemuxer(formatNames);
  const videoStream = output.streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  if (!demuxer && formatNames.some((name) => name.endsWith('_pipe') || name === 'image2')) throw refusedFormat(format.format_name);
  if (!videoStream) {
    const kinds = [...new Set(output.streams.map((s) => s.codec_type ?? 'unknown'))].join(', ') || 'none';
    throw new MediaError('not_a_video', `The file contains no video stream (streams found: ${kinds}). Upload a file with a video track.`);
  }
  // ffprobe already refused these (-format_whitelist); a probe from elsewhere is held to the same list.
  if (!demuxer) throw refusedFormat(format.format_name);
  if (!videoStream.codec_name || !videoStream.width || !videoStream.height) {
    throw new MediaError('corrupt', 'The video file is broken: its video stream has no readable codec or size.');
  }
  const durationSec = toNumber(format.duration) ?? toNumber(videoStream.duration);
  if (durationSec === undefined || !(durationSec > 0)) {
    throw new MediaError('corrupt', 'The video file is broken: its duration cannot be determined.');
  }
  const rotation = rotationOf(videoStream);
  const rotated = Math.abs(rotation) % 180 === 90;
  const audioStream = output.streams.find((s) => s.codec_type === 'audio');
  const audio: AudioStreamInfo | undefined = audioStream?.codec_name
    ? { codec: audioStream.codec_name, sampleRate: toNumber(audioStream.sample_rate) ?? 0, channels: audioStream.channels ?? 0 }
    : undefined;
  return {
    container: containerName(
      formatNames,
      format.tags?.major_brand,
      output.streams.map((s) => s.codec_name ?? ''),
    ),
    demuxer,
    durationSec,
    sizeBytes,
    video: {
      codec: videoStream.codec_name,
      width: rotated ? videoStream.height : videoStream.width,
      height: rotated ? videoStream.width : videoStream.height,
      fps: frameRate(videoStream.avg_frame_rate) ?? frameRate(videoStream.r_frame_rate) ?? 0,
      ...(videoStream.pix_fmt ? { pixelFormat: videoStream.pix_fmt } : {}),
      ...(rotation % 360 !== 0 ? { rotation } : {}),
      ...((videoStream.has_b_frames ?? 0) > 0 ? { hasBFrames: true as const } : {}),
    },
    audio,
    hasAudio: audio !== undefined,
    subtitles: output.streams
      .filter((s) => s.codec_type === 'subtitle')
      .map((s) => ({
        streamIndex: s.index,
        codec: s.codec_name ?? 'unknown',
        isText: TEXT_SUBTITLE_CODECS.has(s.codec_name ?? ''),
        ...(s.tags?.language && s.tags.language !== 'und' ? { language: s.tags.language } : {}),
        ...(s.tags?.title ? { title: s.tags.title } : {}),
      })),
  };
}

/**
 * One demuxer reads several containers (`mov,mp4,m4a,…`, `matroska,webm`): tell them apart by the
 * brand the file declares, or by its codecs for WebM.
 */
function containerName(formatNames: string[], majorBrand: string | undefined, codecs: string[]): string {
  const first = formatNames[0] ?? 'unknown';
  if (formatNames.includes('mp4')) return majorBrand?.trim() === 'qt' ? 'mov' : 'mp4';
  if (formatNames.includes('matroska')) {
    const webmCodecs = new Set(['vp8', 'vp9', 'av1', 'opus', 'vorbis', 'webvtt']);
    return codecs.filter(Boolean).every((c) => webmCodecs.has(c)) ? 'webm' : 'matroska';
  }
  return first;
}

function rotationOf(stream: FfprobeOutput['streams'][number]): number {
  const fromSideData = stream.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation;
  return fromSideData ?? toNumber(stream.tags?.rotate) ?? 0;
}

function frameRate(ratio: string | undefined): number | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(ratio ?? '');
  if (!match) return undefined;
  const [num, den] = [Number(match[1]), Number(match[2])];
  return den > 0 && num > 0 ? Math.round((num / den) * 1000) / 1000 : undefined;
}

function toNumber(value: number | string | undefined): number | undefined {
  if (value === undefined || value === 'N/A') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

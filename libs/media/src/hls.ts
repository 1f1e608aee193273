import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isMediaError, MediaError } from './errors';
import { classifyInputFailure, inputArguments } from './input';
import { probe as probeFile, type MediaProbe } from './probe';
import { runTool, type MediaRunOptions } from './run';

/** The playlist's file name inside the rendition folder; segments are named `seg<n>.ts` beside it. */
export const HLS_PLAYLIST = 'index.m3u8';

export interface HlsOptions extends MediaRunOptions {
  /** Target segment length in seconds (default 4): seek granularity against request count. */
  segmentSec?: number;
  /** Largest height of the rendition (default 720); the aspect ratio is kept. */
  maxHeight?: number;
  /**
   * `auto` (default): copy the streams that can be played as they are (see planHls), and encode
   * the rest; `never`: always encode.
   */
  copy?: 'auto' | 'never';
  /** The file's probe, when the caller has one (saves running ffprobe again). */
  probe?: MediaProbe;
}

/** What happens to each stream of the input. */
export interface HlsPlan {
  video: 'copy' | 'encode';
  audio: 'copy' | 'encode' | 'none';
}

export interface HlsSegment {
  /** As written in the playlist: a file name relative to it. */
  uri: string;
  durationSec: number;
}

export interface HlsPlaylist {
  targetDurationSec: number;
  segments: HlsSegment[];
  /** `#EXT-X-ENDLIST` is present: a complete VOD playlist. */
  ended: boolean;
  playlistType?: string;
}

export interface HlsRendition {
  /** The folder written (the caller owns it). */
  dir: string;
  /** Every file of the rendition, segments first and the playlist last: store them in this order. */
  files: string[];
  segments: HlsSegment[];
  durationSec: number;
  plan: HlsPlan;
}

const DEFAULTS = { segmentSec: 4, maxHeight: 720 } as const;

/** Frame rate cap of an encoded rendition: faster sources (120 fps phone clips) are thinned to it. */
const MAX_HLS_FPS = 60;

/** 8-bit 4:2:0 H.264 is what every HLS player (Safari, hls.js over MSE, Android) decodes. */
const PLAYABLE_PIXEL_FORMATS = new Set(['yuv420p', 'yuvj420p']);

/**
 * Which streams can be copied (pure). Copying costs almost nothing (a fraction of a second
 * against about 20 CPU-seconds of encoding per minute of 720p), so the picture is copied when
 * players take it as it is: H.264 in 8-bit 4:2:0, not taller than `maxHeight`, upright (a copied
 * stream loses MP4's rotation flag: a phone video would play sideways). AAC audio is copied along
 * with it. When the picture must be encoded the audio is encoded too (it costs little), so one
 * ffmpeg run either copies or encodes, never half of each.
 */
export function planHls(probe: Pick<MediaProbe, 'video' | 'audio'>, options: Pick<HlsOptions, 'maxHeight' | 'copy'> = {}): HlsPlan {
  const maxHeight = options.maxHeight ?? DEFAULTS.maxHeight;
  const { video, audio } = probe;
  const copies =
    (options.copy ?? 'auto') === 'auto' &&
    video.codec === 'h264' &&
    PLAYABLE_PIXEL_FORMATS.has(video.pixelFormat ?? '') &&
    !video.rotation &&
    video.height <= maxHeight;
  if (!copies) return { video: 'encode', audio: audio ? 'encode' : 'none' };
  return { video: 'copy', audio: !audio ? 'none' : audio.codec === 'aac' ? 'copy' : 'encode' };
}

/** ffmpeg's arguments for a plan (pure; exported for tests). */
export function hlsArguments(
  input: string,
  outDir: string,
  plan: HlsPlan,
  probe: Pick<MediaProbe, 'audio' | 'demuxer'> & { video?: Pick<MediaProbe['video'], 'fps'> },
  options: Pick<HlsOptions, 'segmentSec' | 'maxHeight'> = {},
): string[] {
  const segmentSec = options.segmentSec ?? DEFAULTS.segmentSec;
  const maxHeight = options.maxHeight ?? DEFAULTS.maxHeight;
  // `V` (not `v`): the picture, never an attached cover image.
  const args = [...inputArguments(input, probe.demuxer), '-map', '0:V:0'];
  if (plan.audio !== 'none') args.push('-map', '0:a:0');
  args.push('-sn', '-dn', '-map_metadata', '-1');
  if (plan.video === 'copy') {
    args.push('-c:v', 'copy');
  } else {
    args.push(
      // Even sides (H.264 4:2:0 needs them), at most maxHeight tall, the aspect kept; at most
      // MAX_HLS_FPS frames a second (an fps filter rather than -fpsmax, which ffmpeg < 4.3 lacks).
      '-vf',
      `${(probe.video?.fps ?? 0) > MAX_HLS_FPS ? `fps=${MAX_HLS_FPS},` : ''}scale=-2:'min(${maxHeight},trunc(ih/2)*2)'`,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '23',
      '-pix_fmt',
      'yuv420p',
      '-profile:v',
      'high',
      // A keyframe at every segment boundary, so segments are exactly segmentSec long.
      '-force_key_frames',
      `expr:gte(t,n_forced*${segmentSec})`,
    );
  }
  if (plan.audio === 'copy') args.push('-c:a', 'copy');
  if (plan.audio === 'encode') args.push('-c:a', 'aac', '-b:a', '128k', ...((probe.audio?.channels ?? 0) > 2 ? ['-ac', '2'] : []));
  args.push(
    '-max_muxing_queue_size',
    '1024',
    '-f',
    'hls',
    '-hls_time',
    String(segmentSec),
    '-hls_playlist_type',
    'vod',
    '-hls_flags',
    'independent_segments',
    '-hls_segment_type',
    'mpegts',
    '-hls_segment_filename',
    join(outDir, 'seg%d.ts'),
    join(outDir, HLS_PLAYLIST),
  );
  return args;
}

/**
 * Reads a media playlist (pure): its target duration, segments (`#EXTINF` + URI) and whether it
 * is complete. Throws MediaError `corrupt` for text that is not an HLS playlist.
 */
export function parseHlsPlaylist(text: string): HlsPlaylist {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines[0] !== '#EXTM3U') throw new MediaError('corrupt', 'Not an HLS playlist (no #EXTM3U header).');
  const playlist: HlsPlaylist = { targetDurationSec: 0, segments: [], ended: false };
  let pending: number | undefined;
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    if (line.startsWith('#EXT-X-TARGETDURATION:')) playlist.targetDurationSec = Number(line.slice(22));
    else if (line.startsWith('#EXT-X-PLAYLIST-TYPE:')) playlist.playlistType = line.slice(21);
    else if (line === '#EXT-X-ENDLIST') playlist.ended = true;
    else if (line.startsWith('#EXTINF:')) pending = Number(line.slice(8).split(',')[0]);
    else if (!line.startsWith('#')) {
      if (pending === undefined || !Number.isFinite(pending))
        throw new MediaError('corrupt', `HLS segment ${line} has no #EXTINF duration.`);
      playlist.segments.push({ uri: line, durationSec: pending });
      pending = undefined;
    }
  }
  return playlist;
}

/**
 * Makes an HLS VOD rendition of `file` in `outDir` (which must exist and be empty): H.264/AAC
 * MPEG-TS segments of about `segmentSec` and the playlist `index.m3u8` naming them relatively,
 * audio kept when there is audio, at most `maxHeight` tall. Streams players take as they are are
 * copied (planHls); a copy whose segments come out much longer than asked (sparse keyframes) is
 * made again by encoding. Throws a MediaError when ffmpeg fails.
 */
export async function makeHls(file: string, outDir: string, options: HlsOptions = {}): Promise<HlsRendition> {
  const probed = options.probe ?? (await probeFile(file, { signal: options.signal }));
  const segmentSec = options.segmentSec ?? DEFAULTS.segmentSec;
  const plan = planHls(probed, options);
  if (plan.video === 'copy') {
    try {
      const copied = await render(file, outDir, plan, probed, options);
      // A copy is cut at the source's keyframes: accept up to three segments' worth between two.
      if (copied.segments.every((s) => s.durationSec <= 3 * segmentSec)) return copied;
    } catch (error) {
      if (options.signal?.aborted || (isMediaError(error) && error.failure === 'tool_missing')) throw error;
      // Anything else (an odd bitstream, say) may still encode: fall through.
    }
    await clear(outDir);
  }
  return render(file, outDir, { video: 'encode', audio: plan.audio === 'none' ? 'none' : 'encode' }, probed, options);
}

/** Encoding is slower than reading: allow 4x the duration, at least two minutes. */
function hlsTimeoutMs(durationSec: number): number {
  return Math.max(120_000, Math.ceil(durationSec * 4_000));
}

async function render(file: string, outDir: string, plan: HlsPlan, probed: MediaProbe, options: HlsOptions): Promise<HlsRendition> {
  await runTool(
    'ffmpeg',
    ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...hlsArguments(file, outDir, plan, probed, options)],
    {
      timeoutMs: options.timeoutMs ?? hlsTimeoutMs(probed.durationSec),
      signal: options.signal,
    },
    classifyInputFailure,
  );
  const playlist = parseHlsPlaylist(await readFile(join(outDir, HLS_PLAYLIST), 'utf8'));
  if (!playlist.ended || playlist.segments.length === 0) throw new MediaError('tool_failed', 'ffmpeg wrote an incomplete HLS playlist.');
  const written = new Set(await readdir(outDir));
  const missing = playlist.segments.find((s) => !written.has(s.uri));
  if (missing) throw new MediaError('tool_failed', `ffmpeg's HLS playlist names ${missing.uri}, which it did not write.`);
  return {
    dir: outDir,
    files: [...playlist.segments.map((s) => s.uri), HLS_PLAYLIST],
    segments: playlist.segments,
    durationSec: playlist.segments.reduce((sum, s) => sum + s.durationSec, 0),
    plan,
  };
}

async function clear(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
}

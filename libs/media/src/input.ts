import { resolve } from 'node:path';
import { MediaError } from './errors';

/**
 * The demuxers a video may be read with: real containers only (MP4/MOV/3GP, Matroska/WebM, AVI,
 * MPEG-TS and -PS, FLV, ASF/WMV, Ogg, MXF). Everything else is refused, above all the playlists and
 * manifests (HLS, DASH, ffconcat): ffmpeg opens the files and URLs they list, so an "MP4" that is
 * really a playlist would read another organization's blob or an internal URL.
 */
export const VIDEO_DEMUXERS: readonly string[] = Object.freeze(['mov', 'matroska', 'avi', 'mpegts', 'mpeg', 'flv', 'asf', 'ogg', 'mxf']);

/** Formats that name other files rather than hold the video (only for the message). */
const PLAYLIST_DEMUXERS = new Set(['hls', 'applehttp', 'dash', 'concat', 'webm_dash_manifest', 'imf']);

/**
 * The arguments that open `file` as the one input of an ffmpeg/ffprobe run: only the demuxers of
 * VIDEO_DEMUXERS, only the file protocol (the path goes as a `file:` URL, so a name with a colon is
 * never read as a protocol), and, after the probe, pinned (`-f`) to the demuxer the probe found, so
 * no later run guesses the format again. Without `demuxer` (the probe itself) ffmpeg sniffs the
 * content but still cannot open anything outside the allowlist.
 */
export function inputArguments(file: string, demuxer?: string): string[] {
  if (demuxer !== undefined && !VIDEO_DEMUXERS.includes(demuxer)) throw refusedFormat(demuxer);
  return [...(demuxer ? ['-f', demuxer] : []), ...allowlistedInput(file, VIDEO_DEMUXERS)];
}

/** `file` as an ffmpeg/ffprobe input readable only with `demuxers`, over the file protocol only (inputArguments; a still's image). */
export function allowlistedInput(file: string, demuxers: readonly string[]): string[] {
  return ['-format_whitelist', demuxers.join(','), '-protocol_whitelist', 'file', '-i', `file:${resolve(file)}`];
}

/** The allowlisted demuxer among ffprobe's `format_name` list (`mov,mp4,m4a,…` → `mov`), if any. */
export function allowedDemuxer(formatNames: readonly string[]): string | undefined {
  return formatNames.find((name) => VIDEO_DEMUXERS.includes(name));
}

/** The refusal of a format outside VIDEO_DEMUXERS (`hls`, `srt`, …), with a message the uploader can act on. */
export function refusedFormat(demuxer: string, toolOutput?: string): MediaError {
  const name = demuxer.split(',')[0] ?? demuxer;
  if (name.endsWith('_pipe') || name === 'image2') {
    return new MediaError('not_a_video', `The file is a still image (${name}), not a video.`, toolOutput);
  }
  const what = PLAYLIST_DEMUXERS.has(name)
    ? `a playlist (${name}) that lists other files instead of holding a video`
    : `in the ${name} format, which is not a video container`;
  return new MediaError('not_a_container', `The file is ${what}. Upload the video file itself, such as MP4, MOV, MKV or WebM.`, toolOutput);
}

/**
 * Why ffmpeg could not open its input in a step after the probe (frames, audio, HLS …): the file is
 * not what its probe said (changed, or the probe was of another file), or is broken. `undefined`
 * for other failures, which the step classifies itself.
 */
export function classifyInputFailure(stderr: string): MediaError | undefined {
  const refused = refusalIn(stderr);
  if (refused) return refused;
  if (
    /Invalid data found when processing input|moov atom not found|EBML header parsing failed|could not find codec parameters/i.test(stderr)
  ) {
    return new MediaError('corrupt', 'The video file is broken and cannot be read. Re-export or re-upload the complete file.', stderr);
  }
  return undefined;
}

/** ffmpeg's refusal of a format outside `-format_whitelist` (`[hls @ 0x…] Format not on whitelist …`), if stderr has one. */
export function refusalIn(stderr: string): MediaError | undefined {
  const demuxer = /\[([a-z0-9_,]+) @ 0x[0-9a-f]+\][^\n]*Format not on whitelist/i.exec(stderr)?.[1];
  return demuxer === undefined ? undefined : refusedFormat(demuxer, stderr);
}

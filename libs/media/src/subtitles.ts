import { MediaError } from './errors';
import { classifyInputFailure, inputArguments } from './input';
import { probe as probeFile, type MediaProbe, type SubtitleTrack } from './probe';
import { runTool, type MediaRunOptions } from './run';

export interface Cue {
  startSec: number;
  endSec: number;
  /** Plain text: styling tags removed, lines joined by a space. */
  text: string;
}

export interface SubtitleTrackCues {
  track: SubtitleTrack;
  cues: Cue[];
}

/**
 * Reads every embedded text subtitle track (mov_text, SRT, WebVTT, ASS) as cues. Bitmap tracks
 * (PGS, DVD) are listed in the probe but skipped here: they hold pictures, not text.
 */
export async function extractSubtitles(file: string, options: MediaRunOptions & { probe?: MediaProbe } = {}): Promise<SubtitleTrackCues[]> {
  const probed = options.probe ?? (await probeFile(file, options));
  const result: SubtitleTrackCues[] = [];
  for (const track of probed.subtitles.filter((t) => t.isText)) {
    const srt = await runTool(
      'ffmpeg',
      [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'error',
        ...inputArguments(file, probed.demuxer),
        '-map',
        `0:${track.streamIndex}`,
        '-c:s',
        'srt',
        '-f',
        'srt',
        'pipe:1',
      ],
      { timeoutMs: options.timeoutMs ?? 120_000, signal: options.signal, maxOutputBytes: 32 * 1024 * 1024 },
      classifyInputFailure,
    );
    result.push({ track, cues: parseSubtitleText(srt.toString('utf8')) });
  }
  return result;
}

const TIMING = /(\d+:)?(\d{1,2}):(\d{2})[,.](\d{1,3})\s*-->\s*(\d+:)?(\d{1,2}):(\d{2})[,.](\d{1,3})/;

/**
 * Parses SRT or WebVTT text into cues, in time order. Pure. Cue numbers, `WEBVTT` headers, NOTE and
 * STYLE blocks, and styling (`<i>`, `{\an8}`) are dropped. Throws MediaError `corrupt` when the text
 * has no timed cue at all but is not empty.
 */
export function parseSubtitleText(text: string): Cue[] {
  const blocks = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/);
  const cues: Cue[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    const timingAt = lines.findIndex((l) => TIMING.test(l));
    if (timingAt < 0) continue;
    const m = TIMING.exec(lines[timingAt]!)!;
    const cueText = lines
      .slice(timingAt + 1)
      .map((l) =>
        l
          .replace(/<[^>]*>/g, '')
          .replace(/\{\\[^}]*\}/g, '')
          .trim(),
      )
      .filter(Boolean)
      .join(' ');
    if (!cueText) continue;
    cues.push({ startSec: seconds(m[1], m[2]!, m[3]!, m[4]!), endSec: seconds(m[5], m[6]!, m[7]!, m[8]!), text: cueText });
  }
  if (cues.length === 0 && text.trim() && !/^\uFEFF?WEBVTT\s*$/.test(text.trim())) {
    throw new MediaError('corrupt', 'The subtitle text has no timed cues (expected SRT or WebVTT).');
  }
  return cues.sort((a, b) => a.startSec - b.startSec);
}

function seconds(hours: string | undefined, minutes: string, secs: string, fraction: string): number {
  const h = hours ? Number(hours.slice(0, -1)) : 0;
  const ms = Number(fraction.padEnd(3, '0'));
  return Math.round((h * 3600 + Number(minutes) * 60 + Number(secs)) * 1000 + ms) / 1000;
}

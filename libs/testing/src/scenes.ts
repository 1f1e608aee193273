import { rm, writeFile } from 'node:fs/promises';
import { runFfmpeg } from '@vus/media';
import { PHOTOS, fontPath, photoPath, type PhotoName } from './photos';

/** A word or phrase drawn on screen. Times are relative to its scene. */
export interface TextOverlay {
  /** Letters, digits and spaces only (kept simple so no filtergraph escaping is ever needed). */
  text: string;
  /** Horizontal position: 'center' (default) or pixels from the left. */
  x?: 'center' | number;
  /** Vertical position in pixels from the top. Default: a tenth of the height. */
  y?: number;
  /** Font size in pixels. Default: a tenth of the height. */
  fontSize?: number;
  /** Shown from this time in the scene. Default 0. */
  fromSec?: number;
  /** Shown until this time in the scene. Default: the scene's end. */
  toSec?: number;
  /** `label` (default): black on a white box; `title`: white lettering straight on the picture, as a title card. */
  look?: 'label' | 'title';
}

export interface SceneSpec {
  durationSec: number;
  /** Background colour (ffmpeg colour name or 0xRRGGBB). Neighbouring scenes should differ so a cut is visible. */
  background: string;
  /** Photos laid out side by side below a top band kept free for text. */
  photos?: PhotoName[];
  texts?: TextOverlay[];
  /** Seconds of fade in from black at the scene's start and out to black at its end (a title card's). */
  fadeSec?: number;
}

export interface SubtitleCue {
  startSec: number;
  endSec: number;
  text: string;
}

export interface VideoSpec {
  width: number;
  height: number;
  fps: number;
  scenes: SceneSpec[];
  /** A 440 Hz tone under the whole video (`tone`), or no audio track at all (`none`). */
  audio: 'tone' | 'none';
  /** An embedded subtitle track: `mov_text` needs container mp4, `srt` needs mkv. */
  subtitles?: { codec: 'mov_text' | 'srt'; language: string; cues: SubtitleCue[] };
  container: 'mp4' | 'mkv';
}

/** What a generated video contains, in absolute seconds, for tests to assert against. */
export interface VideoTruth {
  durationSec: number;
  width: number;
  height: number;
  hasAudio: boolean;
  /** Every on-screen text with the time span it is visible. */
  words: { text: string; startSec: number; endSec: number }[];
  /** Every scene (a hard cut starts each one after the first), with the photos and COCO labels in it. */
  scenes: { startSec: number; endSec: number; photos: PhotoName[]; labels: string[] }[];
  /** Subtitle cues as embedded. */
  sentences: SubtitleCue[];
}

const SAFE_TEXT = /^[A-Za-z0-9 ]+$/;

/** The ground truth of a spec. Pure. */
export function truthOf(spec: VideoSpec): VideoTruth {
  let at = 0;
  const words: VideoTruth['words'] = [];
  const scenes: VideoTruth['scenes'] = [];
  for (const scene of spec.scenes) {
    for (const t of scene.texts ?? []) {
      words.push({ text: t.text, startSec: at + (t.fromSec ?? 0), endSec: at + (t.toSec ?? scene.durationSec) });
    }
    const photos = scene.photos ?? [];
    scenes.push({ startSec: at, endSec: at + scene.durationSec, photos, labels: [...new Set(photos.flatMap((p) => PHOTOS[p].labels))] });
    at += scene.durationSec;
  }
  return {
    durationSec: at,
    width: spec.width,
    height: spec.height,
    hasAudio: spec.audio === 'tone',
    words,
    scenes,
    sentences: spec.subtitles?.cues ?? [],
  };
}

/** Renders a spec to `outPath` with one ffmpeg run (libx264 ultrafast, AAC, optional subtitles). */
export async function renderVideo(spec: VideoSpec, outPath: string): Promise<void> {
  for (const scene of spec.scenes) {
    for (const t of scene.texts ?? []) {
      if (!SAFE_TEXT.test(t.text)) throw new Error(`Overlay text must be letters, digits and spaces: ${JSON.stringify(t.text)}`);
    }
  }
  const font = await fontPath();
  const inputs: string[] = [];
  const filters: string[] = [];
  let inputCount = 0;
  const addInput = (...args: string[]) => {
    inputs.push(...args);
    return inputCount++;
  };
  const { width: W, height: H, fps } = spec;
  const band = Math.round(H / 5 / 2) * 2;

  for (const [i, scene] of spec.scenes.entries()) {
    const base = addInput('-f', 'lavfi', '-i', `color=c=${scene.background}:s=${W}x${H}:r=${fps}:d=${scene.durationSec}`);
    let current = `[${base}:v]`;
    const photos = scene.photos ?? [];
    if (photos.length > 0) {
      const cellW = Math.floor(W / photos.length / 2) * 2;
      const cellH = H - band;
      const cells: string[] = [];
      for (const [j, photo] of photos.entries()) {
        // Decode and scale the still once a second, then repeat it at the video's rate: the photo
        // is the costly part of the graph, and it does not change within a scene.
        const input = addInput('-loop', '1', '-framerate', '1', '-t', String(scene.durationSec), '-i', await photoPath(photo));
        filters.push(
          `[${input}:v]scale=${cellW}:${cellH}:force_original_aspect_ratio=decrease,` +
            `pad=${cellW}:${cellH}:(ow-iw)/2:(oh-ih)/2:color=${scene.background},setsar=1,format=yuv420p,fps=${fps}[p${i}_${j}]`,
        );
        cells.push(`[p${i}_${j}]`);
      }
      const row = `[row${i}]`;
      filters.push(cells.length > 1 ? `${cells.join('')}hstack=inputs=${cells.length}${row}` : `${cells[0]}null${row}`);
      filters.push(`${current}${row}overlay=x=(W-w)/2:y=${band}:shortest=1[bg${i}]`);
      current = `[bg${i}]`;
    }
    const draws = (scene.texts ?? []).map((t) => {
      const size = t.fontSize ?? Math.round(H / 10);
      const x = t.x === undefined || t.x === 'center' ? '(w-text_w)/2' : String(t.x);
      const y = t.y ?? Math.round(H / 10 - size / 2 + 4);
      const from = t.fromSec ?? 0;
      const to = t.toSec ?? scene.durationSec;
      const look = t.look === 'title' ? 'fontcolor=white' : `fontcolor=black:box=1:boxcolor=white:boxborderw=${Math.round(size / 5)}`;
      return `drawtext=fontfile=${font}:text='${t.text}':fontsize=${size}:${look}:x=${x}:y=${y}:enable='between(t,${from},${to - 0.001})'`;
    });
    const fade = scene.fadeSec
      ? [`fade=t=in:st=0:d=${scene.fadeSec}`, `fade=t=out:st=${scene.durationSec - scene.fadeSec}:d=${scene.fadeSec}`]
      : [];
    filters.push(`${current}${[...draws, ...fade, 'setsar=1', 'format=yuv420p'].join(',')}[v${i}]`);
  }
  filters.push(`${spec.scenes.map((_, i) => `[v${i}]`).join('')}concat=n=${spec.scenes.length}:v=1:a=0[v]`);

  const total = spec.scenes.reduce((sum, s) => sum + s.durationSec, 0);
  const maps = ['-map', '[v]'];
  if (spec.audio === 'tone') {
    const audio = addInput('-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${total}`);
    maps.push('-map', `${audio}:a`, '-c:a', 'aac', '-b:a', '64k');
  }
  if (spec.subtitles) {
    const srtPath = `${outPath}.srt`;
    await writeFile(srtPath, toSrt(spec.subtitles.cues));
    const subs = addInput('-i', srtPath);
    maps.push('-map', `${subs}:s`, '-c:s', spec.subtitles.codec, '-metadata:s:s:0', `language=${spec.subtitles.language}`);
  }
  try {
    await runFfmpeg(
      [
        ...inputs,
        '-filter_complex',
        filters.join(';'),
        ...maps,
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-crf',
        '23',
        '-pix_fmt',
        'yuv420p',
        '-r',
        String(fps),
        '-g',
        String(fps * 2),
        '-t',
        String(total),
        '-f',
        spec.container === 'mkv' ? 'matroska' : 'mp4',
        outPath,
      ],
      { timeoutMs: 5 * 60_000 },
    );
  } finally {
    await rm(`${outPath}.srt`, { force: true });
  }
}

/** Cues as SRT text. Pure. */
export function toSrt(cues: readonly SubtitleCue[]): string {
  const stamp = (sec: number) => {
    const ms = Math.round(sec * 1000);
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)},${pad(ms % 1000, 3)}`;
  };
  return cues.map((c, i) => `${i + 1}\n${stamp(c.startSec)} --> ${stamp(c.endSec)}\n${c.text}\n`).join('\n');
}

import { createHash } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import { cachedFixture } from './cache';
import type { PhotoName } from './photos';
import { renderVideo, truthOf, type SceneSpec, type VideoSpec, type VideoTruth } from './scenes';

/** A generated fixture file and what it contains. */
export interface GeneratedVideo {
  path: string;
  truth: VideoTruth;
}

/** Renders (or reuses) any spec: the building block of the named fixtures below. */
export async function generateVideo(name: string, spec: VideoSpec): Promise<GeneratedVideo> {
  const path = await cachedFixture(name, spec.container, spec, (out) => renderVideo(spec, out));
  return { path, truth: truthOf(spec) };
}

/**
 * 12 s, 1280x720, three 4 s scenes on different backgrounds, each with one big word, and a second
 * word shown only from 6 s to 8 s: for text in video (OCR) with times, and shot detection.
 */
export function textScenesVideo(): Promise<GeneratedVideo> {
  return generateVideo('text-scenes', {
    width: 1280,
    height: 720,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: [
      { durationSec: 4, background: '0x1f3b73', texts: [{ text: 'ORANGE' }] },
      { durationSec: 4, background: '0x2e7d32', texts: [{ text: 'PLANET' }, { text: 'GARDEN', y: 520, fromSec: 2 }] },
      { durationSec: 4, background: '0xb71c1c', texts: [{ text: 'BICYCLE' }] },
    ],
  });
}

/** The sentences of subtitledVideo, one cue each, in order. */
export const SUBTITLE_SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Welcome to the video understanding service.',
  'Every sentence has a start and an end.',
] as const;

/**
 * 10 s, 640x480 with a tone and an embedded subtitle track holding SUBTITLE_SENTENCES
 * (mov_text in MP4, or SRT in Matroska): for the conversation extractor.
 */
export function subtitledVideo(container: 'mp4' | 'mkv' = 'mp4'): Promise<GeneratedVideo> {
  return generateVideo(`subtitled-${container}`, {
    width: 640,
    height: 480,
    fps: 25,
    audio: 'tone',
    container,
    scenes: [{ durationSec: 10, background: '0x263238', texts: [{ text: 'INTERVIEW' }] }],
    subtitles: {
      codec: container === 'mp4' ? 'mov_text' : 'srt',
      language: 'eng',
      cues: [
        { startSec: 0.5, endSec: 3, text: SUBTITLE_SENTENCES[0] },
        { startSec: 3.5, endSec: 6, text: SUBTITLE_SENTENCES[1] },
        { startSec: 6.5, endSec: 9.5, text: SUBTITLE_SENTENCES[2] },
      ],
    },
  });
}

/**
 * textScenesVideo's words with subtitledVideo's sentences over them: 12 s of 720p with a tone, for
 * end-to-end indexing and search (on-screen text and conversation from one upload).
 */
export function wordsAndSubtitlesVideo(): Promise<GeneratedVideo> {
  return generateVideo('words-and-subtitles', {
    width: 1280,
    height: 720,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: [
      { durationSec: 4, background: '0x1f3b73', texts: [{ text: 'ORANGE' }] },
      { durationSec: 4, background: '0x2e7d32', texts: [{ text: 'PLANET' }, { text: 'GARDEN', y: 520, fromSec: 2 }] },
      { durationSec: 4, background: '0xb71c1c', texts: [{ text: 'BICYCLE' }] },
    ],
    subtitles: {
      codec: 'mov_text',
      language: 'eng',
      cues: [
        { startSec: 0.5, endSec: 3, text: SUBTITLE_SENTENCES[0] },
        { startSec: 3.5, endSec: 6, text: SUBTITLE_SENTENCES[1] },
        { startSec: 6.5, endSec: 9.5, text: SUBTITLE_SENTENCES[2] },
      ],
    },
  });
}

/**
 * 12 s, 1280x720, four 3 s scenes, each a real photo (people, cells under a microscope, a cat, a
 * phone) with its COCO labels in `truth.scenes[i].labels` (none for the cells): for the object and
 * face detectors.
 */
export function objectsVideo(): Promise<GeneratedVideo> {
  const photos: PhotoName[] = ['people', 'cells', 'cat', 'phone'];
  const backgrounds = ['0x101010', '0xf5f5f5', '0x37474f', '0xe0e0e0'];
  return generateVideo('objects', {
    width: 1280,
    height: 720,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: photos.map((photo, i) => ({ durationSec: 3, background: backgrounds[i]!, photos: [photo] })),
  });
}

/**
 * Spoken lines (subtitles) and on-screen words about unrelated topics, so that a query's meaning,
 * not its words, has to find them: fish → sardines, space → rocket and astronaut. 30 s, five 6 s topics.
 */
export function topicsVideo(): Promise<GeneratedVideo> {
  return generateVideo('search-quality-topics', {
    width: 1280,
    height: 720,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: [
      { durationSec: 6, background: '0x5d4037', texts: [{ text: 'RECIPE' }] },
      { durationSec: 6, background: '0x0d47a1', texts: [{ text: 'COUNTDOWN' }] },
      { durationSec: 6, background: '0x263238', texts: [{ text: 'ORBIT' }] },
      { durationSec: 6, background: '0x1b5e20', texts: [{ text: 'STADIUM' }] },
      { durationSec: 6, background: '0x4a148c', texts: [{ text: 'COUNCIL' }] },
    ],
    subtitles: {
      codec: 'mov_text',
      language: 'eng',
      cues: [
        { startSec: 0.5, endSec: 5.5, text: 'Tonight on the cooking show we grill fresh sardines with lemon.' },
        { startSec: 6.5, endSec: 11.5, text: 'The rocket lifted off after a long countdown.' },
        { startSec: 12.5, endSec: 17.5, text: 'An astronaut waved from the capsule window.' },
        { startSec: 18.5, endSec: 23.5, text: 'Thousands of runners crossed the line at the city marathon.' },
        { startSec: 24.5, endSec: 29.5, text: 'The council voted on a new parking rule downtown.' },
      ],
    },
  });
}

/** 6 s, 640x480, picture only: no audio track at all. */
export function silentVideo(): Promise<GeneratedVideo> {
  return generateVideo('silent', {
    width: 640,
    height: 480,
    fps: 25,
    audio: 'none',
    container: 'mp4',
    scenes: [{ durationSec: 6, background: '0x4a148c', texts: [{ text: 'SILENCE' }] }],
  });
}

/** 2 s, 640x480 with audio: too short to index (the minimum is 4 s). */
export function shortVideo(): Promise<GeneratedVideo> {
  return generateVideo('short', {
    width: 640,
    height: 480,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: [{ durationSec: 2, background: '0x006064', texts: [{ text: 'SHORT' }] }],
  });
}

/** 6 s, 320x240 with audio: below the 360x360 minimum. */
export function lowResolutionVideo(): Promise<GeneratedVideo> {
  return generateVideo('low-resolution', {
    width: 320,
    height: 240,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: [{ durationSec: 6, background: '0x3e2723', texts: [{ text: 'TINY' }] }],
  });
}

/**
 * The indexing benchmark's input: 60 s, 1280x720, 25 fps, a new scene every 5 s, each with a word
 * and a photo (cycling through the four photos) on its own background colour.
 */
export function benchmarkVideo(): Promise<GeneratedVideo> {
  const words = ['ALPHA', 'BRAVO', 'CHARLIE', 'DELTA', 'ECHO', 'FOXTROT', 'GOLF', 'HOTEL', 'INDIA', 'JULIET', 'KILO', 'LIMA'];
  const photos: PhotoName[] = ['people', 'cells', 'cat', 'phone'];
  const backgrounds = ['0x0d47a1', '0x1b5e20', '0xb71c1c', '0x4a148c', '0xe65100', '0x006064'];
  const scenes: SceneSpec[] = words.map((word, i) => ({
    durationSec: 5,
    background: backgrounds[i % backgrounds.length]!,
    photos: [photos[i % photos.length]!],
    texts: [{ text: word }],
  }));
  return generateVideo('benchmark', { width: 1280, height: 720, fps: 25, audio: 'tone', container: 'mp4', scenes });
}

/** A file that is not media at all: 64 KiB of (repeatable) random bytes, named `.mp4`. */
export async function randomBytesVideo(): Promise<{ path: string }> {
  const path = await cachedFixture('random-bytes', 'mp4', 'random-64k', async (out) => {
    const blocks: Buffer[] = [];
    let seed = Buffer.from('vus random bytes fixture');
    for (let size = 0; size < 64 * 1024; size += 32) {
      seed = createHash('sha256').update(seed).digest();
      blocks.push(seed);
    }
    await writeFile(out, Buffer.concat(blocks));
  });
  return { path };
}

/**
 * A real MP4 cut off after its first 40 %: the container is recognisable, but its index (moov,
 * written at the end) is gone, so it cannot be read. For `video_file_broken`.
 */
export async function truncatedVideo(): Promise<{ path: string }> {
  const source = await shortVideo();
  const path = await cachedFixture('truncated', 'mp4', { source: source.path }, async (out) => {
    const handle = await open(source.path, 'r');
    try {
      const { size } = await handle.stat();
      const head = Buffer.alloc(Math.floor(size * 0.4));
      await handle.read(head, 0, head.length, 0);
      await writeFile(out, head);
    } finally {
      await handle.close();
    }
  });
  return { path };
}

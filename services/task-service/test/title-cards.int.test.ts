/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * On-screen text on generated title cards, through the worker's frame pass with the bundled
 * PaddleOCR (issue 23): a card is read, and its span lasts as long as the card is on screen.
 */
import { probe } from '@vus/media';
import { ModelRegistry, paddleOcrProvider, type TextReader } from '@vus/models';
import { generateVideo, type GeneratedVideo } from '@vus/testing';
import { analyseFrames } from '../src/worker/extract/frames';
import { textInVideo, type TimedValue } from '../src/worker/extract/timeline';

jest.setTimeout(180_000);

/** 26 s of 720p: a photo, two 6 s title cards (large white on black; the second fades in and out), a credit line, a photo. */
function titleCardsVideo(): Promise<GeneratedVideo> {
  return generateVideo('title-cards', {
    width: 1280,
    height: 720,
    fps: 25,
    audio: 'none',
    container: 'mp4',
    scenes: [
      { durationSec: 3, background: '0x37474f', photos: ['people'] },
      { durationSec: 6, background: 'black', texts: [{ text: 'THE LAST HARVEST', look: 'title', fontSize: 96, y: 312 }] },
      { durationSec: 6, background: 'black', fadeSec: 1, texts: [{ text: 'A FILM BY ANN LEE', look: 'title', fontSize: 56, y: 330 }] },
      // Small text appearing on a still shot: under the change detector's 1 %, read when the still shot is read again.
      {
        durationSec: 8,
        background: '0x202020',
        texts: [{ text: 'Music by Sam Okafor', look: 'title', fontSize: 16, x: 80, y: 600, fromSec: 2 }],
      },
      { durationSec: 3, background: '0xe0e0e0', photos: ['cat'] },
    ],
  });
}

const sameText = (a: string, b: string) => a.toLowerCase().replace(/\s+/g, ' ').trim() === b.toLowerCase();

describe('title cards through the frame pass', () => {
  const registry = new ModelRegistry([paddleOcrProvider()]);
  let video: GeneratedVideo;
  let spans: TimedValue[];

  beforeAll(async () => {
    video = await titleCardsVideo();
    const textReader: TextReader = await registry.get('text_reader');
    const probed = await probe(video.path);
    const frames = await analyseFrames(video.path, probed, { textReader }, { fps: 1, width: 960, maxThumbnails: 4 });
    spans = textInVideo(frames.observations, frames.step, probed.durationSec);
  }, 180_000);

  afterAll(() => registry.dispose());

  it.each(['THE LAST HARVEST', 'A FILM BY ANN LEE'])('reads the card %s for as long as it is on screen (±1 s), as one span', (text) => {
    const truth = video.truth.words.find((w) => w.text === text)!;
    const found = spans.filter((s) => sameText(s.value, text));
    expect(found).toHaveLength(1);
    expect(Math.abs(found[0]!.start - truth.startSec)).toBeLessThanOrEqual(1);
    expect(Math.abs(found[0]!.end - truth.endSec)).toBeLessThanOrEqual(1);
  });

  it('reads a small credit line that appears on a still shot, until it goes', () => {
    const truth = video.truth.words.find((w) => w.text === 'Music by Sam Okafor')!;
    const found = spans.filter((s) => sameText(s.value, truth.text));
    expect(found).toHaveLength(1);
    expect(found[0]!.start).toBeGreaterThanOrEqual(truth.startSec - 1);
    expect(found[0]!.start).toBeLessThan(truth.endSec);
    expect(Math.abs(found[0]!.end - truth.endSec)).toBeLessThanOrEqual(1);
  });

  it('reads nothing else', () => {
    expect(spans.map((s) => s.value.toLowerCase())).toEqual(['the last harvest', 'a film by ann lee', 'music by sam okafor']);
  });
});

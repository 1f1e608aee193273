/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelRegistry, paddleOcrProvider, type TextReader } from '../src';
import { renderTextFrame, type TextPlacement } from './helpers/frames';

describe('PaddleOCR v4 text reader', () => {
  const registry = new ModelRegistry([paddleOcrProvider()]);
  let reader: TextReader;

  beforeAll(async () => {
    reader = await registry.get('text_reader');
  }, 60_000);

  afterAll(() => registry.dispose());

  it.each<[string, number, number, TextPlacement[], string | undefined]>([
    [
      'a headline and a caption at 720p',
      1280,
      720,
      [
        { text: 'BREAKING NEWS', x: 100, y: 150, size: 72 },
        { text: 'Quarterly revenue grew 42 percent', x: 100, y: 560, size: 40 },
      ],
      undefined,
    ],
    ['light text on a dark frame', 1280, 720, [{ text: 'Welcome to Lisbon', x: 400, y: 380, size: 56 }], '#10213a'],
    ['small lower-third text at 1080p', 1920, 1080, [{ text: 'Interview with Dr Ada Smith', x: 120, y: 980, size: 32 }], undefined],
    [
      'two words side by side on one row',
      1280,
      720,
      [
        { text: 'LEFT', x: 100, y: 300, size: 48 },
        { text: 'RIGHT', x: 900, y: 300, size: 48 },
      ],
      undefined,
    ],
  ])('reads %s', async (_name, width, height, texts, background) => {
    const frame = await renderTextFrame(width, height, texts, background === undefined ? undefined : { background, colour: '#f5f5f5' });
    const lines = await reader.readText(frame);
    expect(lines.map((l) => l.text)).toEqual(texts.map((t) => t.text));
    lines.forEach((line, i) => {
      const drawn = texts[i]!;
      // The line box holds the baseline; its left edge is near where the text was drawn.
      expect(Math.abs(line.box.x - drawn.x)).toBeLessThan(drawn.size / 2);
      expect(line.box.y).toBeLessThan(drawn.y);
      expect(line.box.y + line.box.height).toBeGreaterThan(drawn.y - drawn.size / 4);
      expect(line.confidence).toBeGreaterThan(0.8);
      // Words run left to right inside the line.
      expect(line.words.map((w) => w.text).join(' ')).toBe(line.text);
      for (let k = 1; k < line.words.length; k++) {
        expect(line.words[k]!.box.x).toBeGreaterThan(line.words[k - 1]!.box.x);
      }
      for (const word of line.words) {
        expect(word.box.x).toBeGreaterThanOrEqual(line.box.x - drawn.size / 2);
        expect(word.box.x + word.box.width).toBeLessThanOrEqual(line.box.x + line.box.width + drawn.size / 2);
      }
    });
  });

  it('places a word where it was drawn along the line', async () => {
    const frame = await renderTextFrame(1280, 720, [{ text: 'alpha beta gamma', x: 200, y: 360, size: 60 }]);
    const [line] = await reader.readText(frame);
    const beta = line?.words.find((w) => w.text === 'beta');
    // "alpha " is about 3.1 em wide in DejaVu Sans: beta starts near x = 200 + 3.1 × 60 = 386.
    expect(beta?.box.x).toBeGreaterThan(356);
    expect(beta?.box.x).toBeLessThan(416);
  });

  it('finds nothing on a frame without text', async () => {
    expect(await reader.readText(await renderTextFrame(1280, 720, []))).toEqual([]);
  });

  it('reads an image file by path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vus-ocr-'));
    try {
      const file = join(dir, 'frame.jpg');
      await writeFile(file, await renderTextFrame(640, 360, [{ text: 'Open Source', x: 40, y: 200, size: 48 }]));
      expect((await reader.readText(file)).map((l) => l.text)).toEqual(['Open Source']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects bytes that are not an image', async () => {
    await expect(reader.readText(Buffer.from('not an image'))).rejects.toThrow(/unsupported image format/i);
  });
});

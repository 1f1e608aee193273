import type { Readable } from 'node:stream';
import { MediaError } from './errors';
import { classifyInputFailure, inputArguments } from './input';
import { probe as probeFile, type MediaProbe } from './probe';
import { startTool, type MediaRunOptions } from './run';
import { StreamReader } from './stream-reader';

/** Side of the square grayscale thumbnail that comes with every frame, for change detection. */
export const SIGNATURE_SIZE = 32;

export interface SampleFramesOptions extends MediaRunOptions {
  /** Frames per second of video to sample. Default 1. */
  fps?: number;
  /** Output width in pixels (height keeps the aspect ratio, rounded to even). Default: the video's, never upscaled. */
  width?: number;
  /** `jpeg` (default) or `rgb` (packed RGB24, width*height*3 bytes: what a tensor wants). */
  format?: 'jpeg' | 'rgb';
  /** JPEG quality on ffmpeg's 2 (best) … 31 scale. Default 3. */
  jpegQuality?: number;
  /** Sample only from here (seconds). */
  startSec?: number;
  /** Sample only this long (seconds). */
  durationSec?: number;
  /** A probe of the file already made, to skip probing again. */
  probe?: MediaProbe;
}

export interface SampledFrame {
  /** 0, 1, 2 … in the order sampled. */
  index: number;
  /** Position in the video, seconds: startSec + index / fps. */
  timeSec: number;
  width: number;
  height: number;
  format: 'jpeg' | 'rgb';
  /** JPEG bytes, or RGB24 pixels row by row. */
  data: Buffer;
  /** SIGNATURE_SIZE² grayscale bytes of the same frame, for FrameChangeDetector. */
  signature: Uint8Array;
}

/**
 * Whether sampling at `fps` needs only the frames other frames are decoded from. A stream with
 * B-frames keeps most of its pictures in frames nothing refers to (3,237 of the SDK's example's 4,013
 * at 25 fps): not decoding them (`-skip_frame noref`) halves ffmpeg's work at one frame a second
 * (1.95 → 0.95 CPU-s on the example, issue 30), and each sample is the nearest decoded frame instead,
 * at most a few frames (~0.1 s) away. Not when sampling close to the frame rate, where that would
 * repeat pictures, nor without B-frames, where non-reference frames may be most of the stream. Pure.
 */
export function decodesReferenceFramesOnly(probe: Pick<MediaProbe, 'video'>, fps: number): boolean {
  return probe.video.hasBFrames === true && probe.video.fps > 0 && fps <= probe.video.fps / 4;
}

/**
 * Streams frames at a fixed rate from one ffmpeg process. Memory stays at about one frame: ffmpeg
 * waits while the consumer works on a frame, and its timeout counts only its own time (decoding),
 * not the consumer's, so slow models on a busy machine do not time the decoder out. Leaving the
 * loop early (break, throw) kills ffmpeg.
 *
 * ```ts
 * const changes = new FrameChangeDetector();
 * for await (const frame of sampleFrames(path, { fps: 1, width: 640 })) {
 *   if (!changes.hasChanged(frame.signature)) continue; // same picture: reuse the last results
 *   await ocr(frame.data);
 * }
 * ```
 */
export async function* sampleFrames(file: string, options: SampleFramesOptions = {}): AsyncGenerator<SampledFrame> {
  const fps = options.fps ?? 1;
  if (!(fps > 0)) throw new RangeError('fps must be positive');
  const probed = options.probe ?? (await probeFile(file, options));
  const { width, height } = outputSize(probed.video.width, probed.video.height, options.width);
  const format = options.format ?? 'jpeg';
  const startSec = options.startSec ?? 0;

  const graph =
    `fps=${fps},split=2[full][small];` +
    `[full]scale=${width}:${height}:flags=bicubic,setsar=1[out];` +
    `[small]scale=${SIGNATURE_SIZE}:${SIGNATURE_SIZE}:flags=area,format=gray[sig]`;
  const args = [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    ...(startSec > 0 ? ['-ss', String(startSec)] : []),
    ...(options.durationSec !== undefined ? ['-t', String(options.durationSec)] : []),
    ...(decodesReferenceFramesOnly(probed, fps) ? ['-skip_frame', 'noref'] : []),
    ...inputArguments(file, probed.demuxer),
    '-filter_complex',
    graph,
    '-map',
    '[out]',
    ...(format === 'jpeg'
      ? ['-f', 'image2pipe', '-c:v', 'mjpeg', '-q:v', String(options.jpegQuality ?? 3), 'pipe:1']
      : ['-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']),
    '-map',
    '[sig]',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    'pipe:3',
  ];
  const running = startTool(
    'ffmpeg',
    args,
    {
      timeoutMs: options.timeoutMs ?? defaultTimeoutMs(probed.durationSec),
      signal: options.signal,
      extraPipes: 1,
    },
    classifyInputFailure,
  );
  const frames = new StreamReader(running.child.stdout!);
  const signatures = new StreamReader(running.child.stdio[3] as Readable);
  const frameBytes = width * height * 3;
  try {
    for (let index = 0; ; index++) {
      const data = format === 'jpeg' ? await frames.readJpeg() : await frames.readExact(frameBytes);
      const signature = await signatures.readExact(SIGNATURE_SIZE * SIGNATURE_SIZE);
      if (!data || !signature) break;
      // ffmpeg waits while the consumer works on the frame: that time is not ffmpeg's to be timed.
      const restartClock = running.holdClock();
      yield { index, timeSec: round3(startSec + index / fps), width, height, format, data, signature };
      restartClock();
    }
    // One output ended (ffmpeg exited, or was killed with frames queued): what is left in the other
    // pipe is read away, or its end, and so the process's 'close', would never come (a pipe that
    // fails closes of itself).
    await Promise.all([frames.drain(), signatures.drain()]).catch(() => undefined);
    await running.finished;
  } finally {
    running.stop();
  }
}

/** The output size for a requested width: aspect kept, even height, never larger than the source. */
export function outputSize(sourceWidth: number, sourceHeight: number, requestedWidth?: number): { width: number; height: number } {
  const width = even(Math.min(requestedWidth ?? sourceWidth, sourceWidth));
  const height = even((width * sourceHeight) / sourceWidth);
  if (width < 2 || height < 2)
    throw new MediaError('tool_failed', `Cannot scale ${sourceWidth}x${sourceHeight} to width ${requestedWidth}.`);
  return { width, height };
}

function even(n: number): number {
  return Math.max(2, Math.round(n / 2) * 2);
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Long enough for slow decoding of the whole video, bounded so a wedged ffmpeg still dies. */
export function defaultTimeoutMs(durationSec: number): number {
  return Math.max(60_000, Math.ceil(durationSec * 2_000));
}

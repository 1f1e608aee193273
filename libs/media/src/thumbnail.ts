import { MediaError } from './errors';
import { classifyInputFailure, inputArguments } from './input';
import { probe as probeFile, type MediaProbe } from './probe';
import { runTool, type MediaRunOptions } from './run';

/**
 * One JPEG of the frame at `atSec`, `width` pixels wide (aspect kept; never upscaled). Throws
 * MediaError `no_frame` when there is no frame there (past the end).
 */
export async function thumbnail(
  file: string,
  atSec: number,
  width: number,
  options: MediaRunOptions & { probe?: MediaProbe } = {},
): Promise<Buffer> {
  if (!(atSec >= 0) || !(width >= 2)) throw new RangeError('atSec must be >= 0 and width >= 2');
  const probed = options.probe ?? (await probeFile(file, options));
  const jpeg = await runTool(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-ss',
      String(atSec),
      ...inputArguments(file, probed.demuxer),
      '-frames:v',
      '1',
      '-vf',
      `scale='min(${Math.round(width)},iw)':-2`,
      '-f',
      'image2pipe',
      '-c:v',
      'mjpeg',
      '-q:v',
      '3',
      'pipe:1',
    ],
    { timeoutMs: options.timeoutMs ?? 30_000, signal: options.signal, maxOutputBytes: 32 * 1024 * 1024 },
    classifyInputFailure,
  );
  if (jpeg.length === 0) throw new MediaError('no_frame', `The video has no frame at ${atSec} s.`);
  return jpeg;
}

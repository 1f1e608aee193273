import { resolve } from 'node:path';
import { MediaError } from './errors';
import { allowlistedInput } from './input';
import { runFfmpeg, type MediaRunOptions } from './run';

/** The image demuxers a still may be read with (files only; never a playlist or another file's name). */
const IMAGE_DEMUXERS = ['image2', 'png_pipe', 'jpeg_pipe', 'webp_pipe', 'bmp_pipe', 'gif', 'tiff_pipe'];

/**
 * The still video an image becomes: long and large enough for the indexing pipeline's rules
 * (DEFAULT_INDEXING_RULES: at least 4 s and 360 px each way), small enough to index in moments
 * (at most 1280 px each way, 2 frames a second, no audio).
 */
export const STILL_VIDEO = Object.freeze({ durationSec: 4, fps: 2, maxSide: 1280, minSide: 360 });

/**
 * Writes `outFile`, an H.264 MP4 of the image `imageFile` held still for STILL_VIDEO.durationSec:
 * scaled down to fit maxSide, padded (centred, black) to minSide, even dimensions. Throws a
 * MediaError `unrecognised` (unsupported_file_type) when ffmpeg cannot read the file as an image.
 */
export async function stillVideo(imageFile: string, outFile: string, options: MediaRunOptions = {}): Promise<void> {
  const { durationSec, fps, maxSide, minSide } = STILL_VIDEO;
  const filters = [
    `scale=w='min(${maxSide},iw)':h='min(${maxSide},ih)':force_original_aspect_ratio=decrease`,
    `pad=w='max(${minSide},ceil(iw/2)*2)':h='max(${minSide},ceil(ih/2)*2)':x='(ow-iw)/2':y='(oh-ih)/2'`,
    'loop=loop=-1:size=1:start=0',
    `fps=${fps}`,
    'format=yuv420p',
  ];
  const args = [
    ...allowlistedInput(imageFile, IMAGE_DEMUXERS),
    '-vf',
    filters.join(','),
    '-t',
    String(durationSec),
    '-an',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-tune',
    'stillimage',
    '-movflags',
    '+faststart',
    `file:${resolve(outFile)}`,
  ];
  await runFfmpeg(args, { timeoutMs: options.timeoutMs ?? 60_000, signal: options.signal }, (stderr) =>
    /Invalid data found|Format not on whitelist|could not find codec parameters|Could not find codec/i.test(stderr)
      ? new MediaError('unrecognised', 'The image cannot be read. Upload a JPEG, PNG, WebP, BMP, GIF or TIFF file.', stderr)
      : undefined,
  );
}

import sharp from 'sharp';
import type { ImageInput } from './types';

/** Interleaved 8-bit RGB pixels, row by row. */
export interface RgbImage {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
}

/** Decodes an encoded image (or image file) to RGB, honouring EXIF rotation. */
export async function decodeRgb(image: ImageInput): Promise<RgbImage> {
  const { data, info } = await sharp(image).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Resizes RGB pixels to exactly `width` × `height` (aspect ratio not kept). */
export async function resizeRgb(image: RgbImage, width: number, height: number): Promise<RgbImage> {
  if (image.width === width && image.height === height) return image;
  const { data, info } = await fromRgb(image).resize(width, height, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Cuts a rectangle (integer pixels, inside the image) and resizes it to `width` × `height`. */
export async function cropRgb(
  image: RgbImage,
  region: { left: number; top: number; width: number; height: number },
  width: number,
  height: number,
): Promise<RgbImage> {
  const { data, info } = await fromRgb(image)
    .extract(region)
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function fromRgb(image: RgbImage): sharp.Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
}

export type Triple = readonly [number, number, number];

/**
 * RGB bytes → planar float32 `[3, H, W]` in BGR order (what PaddleOCR was trained on), each value
 * `(v / 255 - mean[c]) / std[c]` with `c` the output channel (B, G, R).
 */
export function toPlanarBgr(image: RgbImage, mean: Triple, std: Triple): Float32Array {
  const plane = image.width * image.height;
  const out = new Float32Array(3 * plane);
  const { data } = image;
  for (let i = 0; i < plane; i++) {
    const r = data[3 * i] ?? 0;
    const g = data[3 * i + 1] ?? 0;
    const b = data[3 * i + 2] ?? 0;
    out[i] = (b / 255 - mean[0]) / std[0];
    out[plane + i] = (g / 255 - mean[1]) / std[1];
    out[2 * plane + i] = (r / 255 - mean[2]) / std[2];
  }
  return out;
}

export interface ImageFacts {
  readonly format: 'jpeg' | 'png' | 'webp' | 'gif' | 'other';
  readonly width: number;
  readonly height: number;
}

/**
 * What an uploaded image is, from its bytes (never its name): format and size, or undefined when
 * the bytes are not a decodable image. Reads the header only.
 */
export async function describeImage(bytes: Buffer): Promise<ImageFacts | undefined> {
  try {
    const meta = await sharp(bytes).metadata();
    if (!meta.width || !meta.height) return undefined;
    const format =
      meta.format === 'jpeg' || meta.format === 'png' || meta.format === 'webp' || meta.format === 'gif' ? meta.format : 'other';
    return { format, width: meta.width, height: meta.height };
  } catch {
    return undefined;
  }
}

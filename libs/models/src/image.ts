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

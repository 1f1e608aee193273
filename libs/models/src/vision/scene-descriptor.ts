/**
 * The bundled scene descriptor: a picture's colours, textures and layout as one 512-d unit vector,
 * so that a query image finds the moments that look like it with nothing downloaded (CLIP, from
 * MODELS_DIR, does this better and also embeds text; this embeds images only). It is the classic
 * global descriptor of near-duplicate and scene retrieval, computed on a 64 × 64 thumbnail, with
 * more weight on what survives a change of camera angle (colours, textures) than on layout:
 *
 * - colours: a hue × saturation × value histogram, 8 × 4 × 4 bins (128 values);
 * - colours by quarter: 8 × 2 × 2 bins for each quarter of the picture (128);
 * - textures: gradients by direction (8) × strength (8), and by quarter 4 × 4 (128);
 * - layout: mean Y, Cb, Cr of a 4 × 4 grid (48), luminance of an 8 × 8 grid (64), and a
 *   16-bin luminance histogram (16).
 *
 * Histograms are of square roots (Hellinger). Each part is centred (its mean taken out) and
 * brought to unit length, then weighted, so that no part outweighs the others by its size.
 * On the SDK's example footage (a frame every 2 s, 2026-11-25) its own search_sample.png, an aerial
 * shot of the derailment taken from another angle, scores 0.84–0.86 against the aerial shots, 0.69
 * against the correspondent with the same footage beside him, 0.20–0.61 against all the others.
 */
import sharp from 'sharp';
import type { RgbImage } from '../image';
import type { ImageInput } from '../types';

export const SCENE_DESCRIPTOR_DIMENSIONS = 512;
/** The thumbnail side the descriptor is computed on. */
export const SCENE_THUMBNAIL_SIDE = 64;

/** Each part's share of the vector's squared length (they sum to 1, so the whole is unit length). */
const PART_WEIGHTS = { colours: 0.3, quarterColours: 0.2, textures: 0.3, layout: 0.2 } as const;

const ORIENTATIONS = 8;
const STRENGTHS = 8;

/** The descriptor of an encoded image (or image file). */
export async function sceneDescriptor(image: ImageInput): Promise<Float32Array> {
  const side = SCENE_THUMBNAIL_SIDE;
  const { data, info } = await sharp(image)
    .rotate()
    .removeAlpha()
    .resize(side, side, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sceneDescriptorOf({ data, width: info.width, height: info.height });
}

/** The descriptor of a 64 × 64 RGB thumbnail. Pure. */
export function sceneDescriptorOf(thumbnail: RgbImage): Float32Array {
  const side = SCENE_THUMBNAIL_SIDE;
  if (thumbnail.width !== side || thumbnail.height !== side) throw new Error(`scene descriptor: a ${side} × ${side} thumbnail is needed`);
  const half = side / 2;
  const quarterOf = (x: number, y: number) => (y < half ? 0 : 2) + (x < half ? 0 : 1);
  const luma = new Float32Array(side * side);
  const colours = new Float32Array(8 * 4 * 4);
  const quarterColours = new Float32Array(4 * 8 * 2 * 2);
  const colourGrid = new Float32Array(4 * 4 * 3);
  const lightGrid = new Float32Array(8 * 8);
  const lightHistogram = new Float32Array(16);
  for (let y = 0; y < side; y += 1) {
    for (let x = 0; x < side; x += 1) {
      const i = y * side + x;
      const r = thumbnail.data[3 * i]! / 255;
      const g = thumbnail.data[3 * i + 1]! / 255;
      const b = thumbnail.data[3 * i + 2]! / 255;
      const l = 0.299 * r + 0.587 * g + 0.114 * b;
      luma[i] = l;
      const [hue, saturation, value] = hsv(r, g, b);
      colours[(bin(hue, 8) * 4 + bin(saturation, 4)) * 4 + bin(value, 4)]! += 1;
      quarterColours[quarterOf(x, y) * 32 + (bin(hue, 8) * 2 + bin(saturation, 2)) * 2 + bin(value, 2)]! += 1;
      const cell = (Math.floor(y / 16) * 4 + Math.floor(x / 16)) * 3;
      // Luminance around mid-grey, chroma around neutral: a dark scene and a bright one point apart.
      colourGrid[cell]! += l - 0.5;
      colourGrid[cell + 1]! += (0.5 * (b - l)) / (1 - 0.114);
      colourGrid[cell + 2]! += (0.5 * (r - l)) / (1 - 0.299);
      lightGrid[Math.floor(y / 8) * 8 + Math.floor(x / 8)]! += l;
      lightHistogram[bin(l, 16)]! += 1;
    }
  }
  return concatenate([
    [colours.map(Math.sqrt), PART_WEIGHTS.colours],
    [quarterColours.map(Math.sqrt), PART_WEIGHTS.quarterColours],
    [textures(luma, side, quarterOf).map(Math.sqrt), PART_WEIGHTS.textures],
    [concatenated([colourGrid, lightGrid, lightHistogram.map(Math.sqrt)]), PART_WEIGHTS.layout],
  ]);
}

/** The bin (0 … bins − 1) of a value from 0 to 1. */
const bin = (x: number, bins: number) => Math.min(bins - 1, Math.max(0, Math.floor(x * bins)));

/** Hue, saturation and value of an RGB colour, each 0–1. */
function hsv(r: number, g: number, b: number): [number, number, number] {
  const max = Math.max(r, g, b);
  const chroma = max - Math.min(r, g, b);
  let hue = 0;
  if (chroma > 0) {
    if (max === r) hue = ((g - b) / chroma + 6) % 6;
    else if (max === g) hue = (b - r) / chroma + 2;
    else hue = (r - g) / chroma + 4;
  }
  return [hue / 6, max === 0 ? 0 : chroma / max, max];
}

/**
 * Gradients counted by direction (unsigned, 8) × strength (8, on a log scale) over the picture,
 * and by direction (4) × strength (4) in each quarter: texture, whatever the camera's angle.
 */
function textures(luma: Float32Array, side: number, quarterOf: (x: number, y: number) => number): Float32Array {
  const global = new Float32Array(ORIENTATIONS * STRENGTHS);
  const quarters = new Float32Array(4 * 4 * 4);
  for (let y = 1; y < side - 1; y += 1) {
    for (let x = 1; x < side - 1; x += 1) {
      const dx = luma[y * side + x + 1]! - luma[y * side + x - 1]!;
      const dy = luma[(y + 1) * side + x]! - luma[(y - 1) * side + x]!;
      const magnitude = Math.hypot(dx, dy);
      // Below 1/128 of the range is flat (noise and compression); the strongest edges reach ~1.4.
      if (magnitude < 1 / 128) continue;
      const direction = ((Math.atan2(dy, dx) + Math.PI) % Math.PI) / Math.PI;
      const strength = Math.log2(magnitude * 128) / 7.5;
      global[bin(direction, ORIENTATIONS) * STRENGTHS + bin(strength, STRENGTHS)]! += 1;
      quarters[quarterOf(x, y) * 16 + bin(direction, 4) * 4 + bin(strength, 4)]! += 1;
    }
  }
  return concatenated([global, quarters]);
}

function concatenated(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Each part centred and at unit length times the square root of its weight, one after another. */
function concatenate(parts: readonly (readonly [Float32Array, number])[]): Float32Array {
  const out = new Float32Array(SCENE_DESCRIPTOR_DIMENSIONS);
  let offset = 0;
  for (const [part, weight] of parts) {
    const mean = part.reduce((sum, x) => sum + x, 0) / part.length;
    let norm = 0;
    for (const x of part) norm += (x - mean) ** 2;
    norm = Math.sqrt(norm);
    const scale = norm > 1e-9 ? Math.sqrt(weight) / norm : 0;
    for (let i = 0; i < part.length; i += 1) out[offset + i] = (part[i]! - mean) * scale;
    offset += part.length;
  }
  if (offset !== SCENE_DESCRIPTOR_DIMENSIONS) throw new Error(`scene descriptor: ${offset} values, not ${SCENE_DESCRIPTOR_DIMENSIONS}`);
  // A part with no variation (a plain colour has no edges) contributes nothing: renormalise the rest.
  const length = Math.hypot(...out);
  return length > 0 ? out.map((x) => x / length) : out;
}

import type { Box } from '../types';

/** Intersection over union of two boxes, 0–1. */
export function iou(a: Box, b: Box): number {
  const x0 = Math.max(a.x, b.x);
  const y0 = Math.max(a.y, b.y);
  const x1 = Math.min(a.x + a.width, b.x + b.width);
  const y1 = Math.min(a.y + a.height, b.y + b.height);
  const intersection = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
  const union = a.width * a.height + b.width * b.height - intersection;
  return union > 0 ? intersection / union : 0;
}

/**
 * Greedy non-maximum suppression: best score first, dropping any later candidate of the same
 * `group` (label) that overlaps a kept one by more than `maxIou`.
 */
export function nonMaxSuppression<T extends { box: Box; score: number; group?: string }>(
  candidates: readonly T[],
  maxIou: number,
  limit: number,
): T[] {
  const kept: T[] = [];
  for (const candidate of [...candidates].sort((a, b) => b.score - a.score)) {
    if (kept.length >= limit) break;
    if (kept.some((k) => k.group === candidate.group && iou(k.box, candidate.box) > maxIou)) continue;
    kept.push(candidate);
  }
  return kept;
}

/** Maps a box from a `fromW` × `fromH` image to `toW` × `toH`, rounded and clamped to the target. */
export function rescaleBox(box: Box, fromW: number, fromH: number, toW: number, toH: number): Box {
  const sx = toW / fromW;
  const sy = toH / fromH;
  const x = clamp(Math.round(box.x * sx), 0, toW);
  const y = clamp(Math.round(box.y * sy), 0, toH);
  return {
    x,
    y,
    width: clamp(Math.round((box.x + box.width) * sx), 0, toW) - x,
    height: clamp(Math.round((box.y + box.height) * sy), 0, toH) - y,
  };
}

/** Where an image sits inside a model input after an aspect-preserving resize. */
export interface Letterbox {
  /** Input pixels per image pixel. */
  readonly scale: number;
  /** The resized image's size and its offset in the input (the rest is padding). */
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly top: number;
}

/**
 * The image scaled to fit an `inputWidth` × `inputHeight` input (a square by default), keeping its
 * aspect ratio, centred (the reference preprocessing of MB3-CenterNet: the picture in the middle,
 * black around it).
 */
export function letterbox(imageWidth: number, imageHeight: number, inputWidth: number, inputHeight = inputWidth): Letterbox {
  const scale = Math.min(inputWidth / Math.max(imageWidth, 1), inputHeight / Math.max(imageHeight, 1));
  const width = clamp(Math.round(imageWidth * scale), 1, inputWidth);
  const height = clamp(Math.round(imageHeight * scale), 1, inputHeight);
  return { scale, width, height, left: Math.floor((inputWidth - width) / 2), top: Math.floor((inputHeight - height) / 2) };
}

/** Maps a box from the letterboxed input back to the `imageWidth` × `imageHeight` image. */
export function unletterboxBox(box: Box, placed: Letterbox, imageWidth: number, imageHeight: number): Box {
  return rescaleBox(
    { x: box.x - placed.left, y: box.y - placed.top, width: box.width, height: box.height },
    placed.width,
    placed.height,
    imageWidth,
    imageHeight,
  );
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

import type { Box } from '../types';

/**
 * The pure halves of PaddleOCR's pipeline: turning the detector's probability map into text boxes
 * (DB post-processing) and the recogniser's per-step scores into characters (CTC greedy decoding).
 */

export interface TextBoxOptions {
  /** A pixel belongs to text when its probability exceeds this (PaddleOCR `det_db_thresh`). */
  readonly pixelThreshold: number;
  /** A region is kept when its mean probability reaches this (`det_db_box_thresh`). */
  readonly boxThreshold: number;
  /** How far a shrunk text kernel is grown back (`det_db_unclip_ratio`). */
  readonly unclipRatio: number;
  /** Regions whose shorter side is below this many map pixels are noise. */
  readonly minSide: number;
}

export const DEFAULT_TEXT_BOX_OPTIONS: TextBoxOptions = {
  pixelThreshold: 0.3,
  boxThreshold: 0.6,
  unclipRatio: 1.5,
  minSide: 3,
};

export interface ScoredBox extends Box {
  readonly score: number;
}

/**
 * Connected regions of the map above the pixel threshold, as axis-aligned boxes grown by the
 * unclip distance (area × ratio / perimeter, as PaddleOCR does) and clamped to the map.
 * Video text is almost always horizontal, so rectangles are enough.
 */
export function findTextBoxes(
  map: Float32Array,
  width: number,
  height: number,
  options: TextBoxOptions = DEFAULT_TEXT_BOX_OPTIONS,
): ScoredBox[] {
  const threshold = options.pixelThreshold;
  const visited = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const boxes: ScoredBox[] = [];
  for (let start = 0; start < map.length; start++) {
    if (visited[start] || (map[start] ?? 0) <= threshold) continue;
    // Flood fill (4-connected) from this pixel, tracking the bounds and the probability sum.
    let top = 0;
    stack[top++] = start;
    visited[start] = 1;
    let minX = width;
    let minY = height;
    let maxX = -1;
    let maxY = -1;
    let sum = 0;
    let count = 0;
    while (top > 0) {
      const at = stack[--top]!;
      const x = at % width;
      const y = (at - x) / width;
      sum += map[at]!;
      count++;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      // Neighbours left, right, up, down, in that order (it sets the order of the sum); written
      // out, not an array per pixel (issue 30).
      let next = at - 1;
      if (x > 0 && !visited[next] && map[next]! > threshold) {
        visited[next] = 1;
        stack[top++] = next;
      }
      next = at + 1;
      if (x < width - 1 && !visited[next] && map[next]! > threshold) {
        visited[next] = 1;
        stack[top++] = next;
      }
      next = at - width;
      if (y > 0 && !visited[next] && map[next]! > threshold) {
        visited[next] = 1;
        stack[top++] = next;
      }
      next = at + width;
      if (y < height - 1 && !visited[next] && map[next]! > threshold) {
        visited[next] = 1;
        stack[top++] = next;
      }
    }
    const boxWidth = maxX - minX + 1;
    const boxHeight = maxY - minY + 1;
    const score = sum / count;
    if (Math.min(boxWidth, boxHeight) < options.minSide || score < options.boxThreshold) continue;
    const grow = (boxWidth * boxHeight * options.unclipRatio) / (2 * (boxWidth + boxHeight));
    const x0 = Math.max(0, Math.floor(minX - grow));
    const y0 = Math.max(0, Math.floor(minY - grow));
    const x1 = Math.min(width, Math.ceil(maxX + 1 + grow));
    const y1 = Math.min(height, Math.ceil(maxY + 1 + grow));
    boxes.push({ x: x0, y: y0, width: x1 - x0, height: y1 - y0, score });
  }
  return sortReadingOrder(boxes);
}

/** Top to bottom; boxes whose vertical centres are within half a line height count as one row, left to right. */
export function sortReadingOrder<B extends Box>(boxes: readonly B[]): B[] {
  const byTop = [...boxes].sort((a, b) => a.y + a.height / 2 - (b.y + b.height / 2));
  const rows: B[][] = [];
  for (const box of byTop) {
    const centre = box.y + box.height / 2;
    const row = rows.at(-1);
    const first = row?.[0];
    if (row && first && Math.abs(first.y + first.height / 2 - centre) < Math.min(first.height, box.height) / 2) row.push(box);
    else rows.push([box]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.x - b.x));
}

/**
 * Joins the boxes of one line of text into one box: DB finds large, widely spaced title lettering
 * word by word, and a word read on its own loses its neighbours (its crop's margin picked up the
 * last letter of the previous word: "LAST HARVEST" read "THARVEST"). Two boxes are one line when
 * they share most of their height, are of similar height, and the gap between them is under
 * `maxGap` times that height (a word space is about 0.3). In reading order. Pure.
 */
export function mergeLineBoxes<B extends Box>(boxes: readonly B[], maxGap = 0.8): Box[] {
  const merged: Box[] = [];
  for (const box of sortReadingOrder(boxes)) {
    const index = merged.findIndex((line) => sameLine(line, box, maxGap));
    const line = merged[index];
    if (!line) {
      merged.push({ x: box.x, y: box.y, width: box.width, height: box.height });
      continue;
    }
    const x = Math.min(line.x, box.x);
    const y = Math.min(line.y, box.y);
    merged[index] = {
      x,
      y,
      width: Math.max(line.x + line.width, box.x + box.width) - x,
      height: Math.max(line.y + line.height, box.y + box.height) - y,
    };
  }
  return sortReadingOrder(merged);
}

function sameLine(a: Box, b: Box, maxGap: number): boolean {
  const shorter = Math.min(a.height, b.height);
  const taller = Math.max(a.height, b.height);
  if (taller > 1.5 * shorter) return false;
  const overlap = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (overlap < 0.6 * shorter) return false;
  const gap = Math.max(a.x, b.x) - Math.min(a.x + a.width, b.x + b.width);
  return gap <= maxGap * shorter;
}

export interface DecodedChar {
  readonly char: string;
  readonly probability: number;
  /** The output step that emitted it, 0 … steps-1: its horizontal position along the line. */
  readonly step: number;
}

/**
 * CTC greedy decoding: the best class per step; class 0 is the blank, repeats of a class collapse,
 * class k ≥ 1 is `dictionary[k - 1]`. `scores` is `[steps, classes]`, row-major.
 */
export function ctcGreedyDecode(scores: Float32Array, steps: number, classes: number, dictionary: readonly string[]): DecodedChar[] {
  const chars: DecodedChar[] = [];
  let previous = -1;
  for (let step = 0; step < steps; step++) {
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    const offset = step * classes;
    for (let k = 0; k < classes; k++) {
      const score = scores[offset + k] ?? Number.NEGATIVE_INFINITY;
      if (score > bestScore) {
        bestScore = score;
        best = k;
      }
    }
    if (best !== 0 && best !== previous) {
      const char = dictionary[best - 1];
      if (char !== undefined) chars.push({ char, probability: bestScore, step });
    }
    previous = best;
  }
  return chars;
}

export interface DecodedWord {
  readonly text: string;
  readonly confidence: number;
  /** The word's extent along the line, as fractions 0–1 of the line's width. */
  readonly from: number;
  readonly to: number;
}

/**
 * Splits decoded characters into words at recognised spaces, and also where two characters sit
 * unusually far apart: the recogniser often drops the space between capitalised words
 * ("BREAKINGNEWS"), but the gap in its output steps remains.
 */
export function splitWords(chars: readonly DecodedChar[], steps: number): DecodedWord[] {
  const gaps: number[] = [];
  for (let i = 1; i < chars.length; i++) {
    const a = chars[i - 1];
    const b = chars[i];
    if (a && b && !isSpace(a.char) && !isSpace(b.char)) gaps.push(b.step - a.step);
  }
  const typical = median(gaps);
  const wide = typical === undefined ? Number.POSITIVE_INFINITY : Math.max(2 * typical, typical + 3);

  const words: DecodedWord[] = [];
  let current: DecodedChar[] = [];
  const flush = (): void => {
    const first = current[0];
    const last = current.at(-1);
    if (first && last) {
      words.push({
        text: current.map((c) => c.char).join(''),
        confidence: current.reduce((sum, c) => sum + c.probability, 0) / current.length,
        // A character spans roughly one step either side of where CTC emits it.
        from: Math.max(0, (first.step - 1) / steps),
        to: Math.min(1, (last.step + 2) / steps),
      });
    }
    current = [];
  };
  for (const c of chars) {
    const previous = current.at(-1);
    if (isSpace(c.char)) {
      flush();
      continue;
    }
    if (previous && c.step - previous.step >= wide) flush();
    current.push(c);
  }
  flush();
  return words;
}

function isSpace(char: string): boolean {
  return /\s/.test(char);
}

function median(values: readonly number[]): number | undefined {
  if (values.length < 3) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

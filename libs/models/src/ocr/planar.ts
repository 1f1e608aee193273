import type { RgbImage } from '../image';

export type Triple = readonly [number, number, number];

/**
 * Per output channel (B, G, R), the float32 each byte value becomes: `(v / 255 - mean[c]) / std[c]`.
 * Computed once per mean and std, the same doubles rounded the same way as per pixel (issue 30: the
 * per-pixel arithmetic was PaddleOCR's largest cost of its own on the main thread).
 */
function channelTables(mean: Triple, std: Triple): [Float32Array, Float32Array, Float32Array] {
  const table = (c: 0 | 1 | 2): Float32Array => Float32Array.from({ length: 256 }, (_, v) => (v / 255 - mean[c]) / std[c]);
  return [table(0), table(1), table(2)];
}

const tables = new Map<string, [Float32Array, Float32Array, Float32Array]>();

function tablesFor(mean: Triple, std: Triple): [Float32Array, Float32Array, Float32Array] {
  const key = `${mean.join()}/${std.join()}`;
  let found = tables.get(key);
  if (!found) tables.set(key, (found = channelTables(mean, std)));
  return found;
}

/**
 * RGB bytes → planar float32 `[3, H, W]` in BGR order (what PaddleOCR was trained on), each value
 * `(v / 255 - mean[c]) / std[c]` with `c` the output channel (B, G, R). Written into `into` when it
 * has the right length (a buffer kept between frames of one size), else into a new array.
 */
export function toPlanarBgr(image: RgbImage, mean: Triple, std: Triple, into?: Float32Array): Float32Array {
  const plane = image.width * image.height;
  const out = into?.length === 3 * plane ? into : new Float32Array(3 * plane);
  const [blue, green, red] = tablesFor(mean, std);
  const { data } = image;
  for (let i = 0, at = 0; i < plane; i++, at += 3) {
    out[i] = blue[data[at + 2]!]!;
    out[plane + i] = green[data[at + 1]!]!;
    out[2 * plane + i] = red[data[at]!]!;
  }
  return out;
}

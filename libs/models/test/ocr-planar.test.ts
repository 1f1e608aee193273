import { toPlanarBgr, type Triple } from '../src/ocr/planar';

/** The per-pixel formula the tables stand for, rounded to float32 as the tensor stores it. */
const expected = (v: number, mean: number, std: number): number => Math.fround((v / 255 - mean) / std);

describe('toPlanarBgr', () => {
  it.each<[string, Triple, Triple]>([
    ['the detector’s ImageNet mean and deviation', [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]],
    ['the recogniser’s 0.5 and 0.5', [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]],
  ])('is (v / 255 - mean) / std for every byte value, planes in B, G, R order: %s', (_name, mean, std) => {
    // 256 pixels: pixel v has red v, green 255 - v, blue (v * 7) % 256.
    const data = Buffer.alloc(256 * 3);
    for (let v = 0; v < 256; v++) data.set([v, 255 - v, (v * 7) % 256], 3 * v);
    const out = toPlanarBgr({ data, width: 16, height: 16 }, mean, std);
    expect(out).toHaveLength(3 * 256);
    for (let v = 0; v < 256; v++) {
      expect(out[v]).toBe(expected((v * 7) % 256, mean[0], std[0]));
      expect(out[256 + v]).toBe(expected(255 - v, mean[1], std[1]));
      expect(out[512 + v]).toBe(expected(v, mean[2], std[2]));
    }
  });

  it('writes into the array it is given when its length fits, else into a new one', () => {
    const image = { data: Buffer.from([255, 0, 0, 0, 255, 0]), width: 2, height: 1 };
    const mean: Triple = [0.5, 0.5, 0.5];
    const kept = new Float32Array(6).fill(9);
    expect(toPlanarBgr(image, mean, mean, kept)).toBe(kept);
    expect([...kept]).toEqual([-1, -1, -1, 1, 1, -1]);
    const tooShort = new Float32Array(3);
    const made = toPlanarBgr(image, mean, mean, tooShort);
    expect(made).not.toBe(tooShort);
    expect([...made]).toEqual([...kept]);
  });
});

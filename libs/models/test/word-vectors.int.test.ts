/**
 * The word-vector locator against JSON.parse on a small file in the package's shape: keys with
 * escapes and non-ASCII letters, arrays and keys cut by every chunk boundary.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locateVectors, openWordVectors, parseVector, WORD_VECTOR_DIMENSIONS } from '../src/concept/word-vectors';

const vectorOf = (seed: number): number[] => [
  ...Array.from({ length: WORD_VECTOR_DIMENSIONS }, (_, d) => Math.round(Math.sin(seed * 7 + d) * 1e4) / 1e4),
  1.5,
  seed,
];
const words = ['the', 'café', 'say "hi"', 'back\\slash', 'naïve', 'x', 'ünïcödé-wörd', 'a]b', 'last'];
const file = {
  meta: { note: 'a "vectors": key inside a string is not the object' },
  vectors: Object.fromEntries(words.map((w, i) => [w, vectorOf(i)])),
};

let dir: string;
let path: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vus-word-vectors-'));
  path = join(dir, 'vectors.json');
  writeFileSync(path, JSON.stringify(file));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('locateVectors', () => {
  it.each([1, 2, 3, 5, 7, 11, 64, 1000, 8 * 1024 * 1024])('finds every word and its array in chunks of %i bytes', (chunkBytes) => {
    const fd = openSync(path, 'r');
    try {
      const located = locateVectors(fd, chunkBytes);
      expect([...located.index.keys()]).toEqual(words);
      const bytes = Buffer.from(JSON.stringify(file));
      for (const [word, at] of located.index) {
        const array = bytes.subarray(located.starts[at], located.ends[at]).toString();
        expect(JSON.parse(`[${array}]`)).toEqual(file.vectors[word]);
      }
    } finally {
      closeSync(fd);
    }
  });

  it('reads a word as the file has it, at unit length', async () => {
    const vectors = openWordVectors({ file: path });
    await vectors.prepare();
    const expected = parseVector(vectorOf(1).join(','), WORD_VECTOR_DIMENSIONS);
    expect(vectors.vector('CAFÉ')).toEqual(expected);
    expect(vectors.has('say "hi"')).toBe(true);
    expect(vectors.has('unknown')).toBe(false);
    vectors.close();
  });
});

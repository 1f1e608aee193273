import { promisify } from 'node:util';
import { brotliCompressSync, brotliDecompressSync, gzip } from 'node:zlib';
import { unpack } from 'msgpackr';
import { groupCommit, packItems, unpackItems } from '../src/result-set-store';
import type { Clip } from '../src/clips';

const clip = (videoId: string, rank: number): Clip => ({
  videoId,
  start: 1.25,
  end: 7.5,
  score: 0.8123456789012345,
  confidence: 'high',
  modules: [{ option: 'visual', score: 0.71, confidence: 'medium' }],
  matches: [
    { option: 'visual', text: '' },
    { option: 'conversation', text: 'a man walks his dog — ünïcode “quotes”' },
  ],
  thumbnailKey: `thumbnails/${videoId}.jpg`,
  transcription: 'a man walks his dog',
  rank,
});

describe('result-set items as stored', () => {
  const cases: [string, unknown[]][] = [
    ['no items', []],
    ['clips', [clip('v1', 1), clip('v2', 2)]],
    ['videos with their clips', [{ videoId: 'v1', clips: [clip('v1', 1), clip('v1', 3)] }]],
    ['many clips', Array.from({ length: 1000 }, (_, i) => clip(`v${i % 37}`, i + 1))],
  ];
  it.each(cases)('%s come back as they went in', async (_name, items) => {
    expect(await unpackItems(packItems(items))).toEqual(items);
  });

  it('packs MessagePack into brotli behind its format byte, not JSON', async () => {
    const packed = packItems([clip('v1', 1)]);
    expect(packed[0]).toBe(0x03);
    const inside = brotliDecompressSync(packed.subarray(1));
    expect(inside.toString('utf8')).not.toContain('"videoId"');
    expect(unpack(inside)).toEqual([clip('v1', 1)]);
  });

  it('still reads the brotli JSON of sets written before MessagePack', async () => {
    const items = [clip('v1', 1), clip('v2', 2)];
    const older = Buffer.concat([Buffer.of(0x02), brotliCompressSync(Buffer.from(JSON.stringify(items)))]);
    expect(await unpackItems(older)).toEqual(items);
  });

  it('still reads the gzip of sets written before brotli', async () => {
    const items = [clip('v1', 1), clip('v2', 2)];
    const older = await promisify(gzip)(Buffer.from(JSON.stringify(items)), { level: 1 });
    expect(await unpackItems(older)).toEqual(items);
  });
});

describe('groupCommit: result sets written a batch at a time', () => {
  /** Lets the writer's promise callbacks run. */
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  /** A writer whose writes end when the test says, recording each batch. */
  function heldWriter(failing: (batch: number[]) => boolean = () => false) {
    const batches: number[][] = [];
    const ends: (() => void)[] = [];
    const write = (batch: number[]) =>
      new Promise<void>((resolve, reject) => {
        batches.push(batch);
        ends.push(() => (failing(batch) ? reject(new Error(`batch ${batch.join(',')} failed`)) : resolve()));
      });
    const endNext = async () => {
      ends.shift()!();
      await settled();
    };
    return { batches, write, endNext };
  }

  it('writes an item at once when nothing is being written', async () => {
    const writer = heldWriter();
    const save = groupCommit(writer.write, 10);
    const saved = save(1);
    await settled();
    expect(writer.batches).toEqual([[1]]);
    await writer.endNext();
    await expect(saved).resolves.toBeUndefined();
  });

  it('writes what arrived during a write in one batch after it, at most maxBatch at a time', async () => {
    const writer = heldWriter();
    const save = groupCommit(writer.write, 2);
    const saved = [1, 2, 3, 4].map((n) => save(n));
    await settled();
    expect(writer.batches).toEqual([[1]]);
    await writer.endNext();
    expect(writer.batches).toEqual([[1], [2, 3]]);
    await writer.endNext();
    expect(writer.batches).toEqual([[1], [2, 3], [4]]);
    await writer.endNext();
    await expect(Promise.all(saved)).resolves.toEqual([undefined, undefined, undefined, undefined]);
    void save(5);
    await settled();
    expect(writer.batches.at(-1)).toEqual([5]);
  });

  it("fails only the failed batch's items; the next batch is still written", async () => {
    const writer = heldWriter((batch) => batch.includes(2));
    const save = groupCommit(writer.write, 10);
    const saved = [1, 2, 3].map((n) =>
      save(n).then(
        () => 'saved',
        (e: Error) => e.message,
      ),
    );
    await settled();
    await writer.endNext();
    await writer.endNext();
    const later = save(4).then(() => 'saved');
    await settled();
    await writer.endNext();
    expect(await Promise.all(saved)).toEqual(['saved', 'batch 2,3 failed', 'batch 2,3 failed']);
    expect(await later).toBe('saved');
  });

  it('fails the batch of a write that throws instead of answering a promise, and goes on', async () => {
    let calls = 0;
    const save = groupCommit<number>((batch) => {
      calls += 1;
      if (batch.includes(1)) throw new Error('thrown');
      return Promise.resolve();
    }, 10);
    await expect(save(1)).rejects.toThrow('thrown');
    await expect(save(2)).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});

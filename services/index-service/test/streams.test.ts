import { codeOf } from '@vus/testing';
import { boundedChunks, createStreamService, STREAM_CHUNK_BYTES, type StreamBlobs, type StreamStore } from '../src/streams';

const VIDEO = '6528dde58f9cd95a98cbd077';
const FOLDER = `videos/${VIDEO}/hls/`;

/** Videos and the stream keys they recorded; blobs in memory. */
function fakes(streams: Record<string, string[]>, files: Record<string, Buffer>) {
  const store: StreamStore = { streamKeysOf: async (videoId) => streams[videoId] };
  const blobs: StreamBlobs = {
    stat: async (key) => (files[key] ? { size: files[key].length } : undefined),
    get: async (key) => {
      const bytes = files[key];
      if (!bytes) throw Object.assign(new Error('gone'), { code: 'resource_not_exist' });
      return (async function* () {
        yield bytes;
      })();
    },
  };
  return { store, blobs };
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe('boundedChunks', () => {
  it.each([
    ['one small chunk', [5], 4, [4, 1]],
    ['exactly the bound', [8], 4, [4, 4]],
    ['several chunks, each cut', [3, 9], 4, [3, 4, 4, 1]],
    ['nothing', [], 4, []],
    ['an empty chunk', [0], 4, []],
  ])('%s', async (_label, sizes, max, expected) => {
    const source = (async function* () {
      for (const size of sizes) yield new Uint8Array(size);
    })();
    expect((await collect(boundedChunks(source, max))).map((c) => c.length)).toEqual(expected);
  });
});

describe('stream files', () => {
  const playlist = Buffer.from('#EXTM3U\n#EXT-X-ENDLIST\n');
  const segment = Buffer.alloc(STREAM_CHUNK_BYTES * 2 + 10, 0x47);
  const { store, blobs } = fakes(
    { [VIDEO]: [`${FOLDER}index.m3u8`, `${FOLDER}thumbnail.jpg`], '6528dde58f9cd95a98cbd078': [] },
    {
      [`${FOLDER}index.m3u8`]: playlist,
      [`${FOLDER}seg0.ts`]: segment,
      [`${FOLDER}thumbnail.jpg`]: Buffer.from([0xff, 0xd8]),
      [`${FOLDER}notes.txt`]: Buffer.from('x'),
    },
  );
  const streams = createStreamService({ store, blobs });

  it.each([
    ['the playlist', 'index.m3u8', 'application/vnd.apple.mpegurl', playlist.length],
    ['a segment', 'seg0.ts', 'video/mp2t', segment.length],
    ['the still', 'thumbnail.jpg', 'image/jpeg', 2],
  ])('serves %s with its type and size, in bounded chunks', async (_label, file, contentType, size) => {
    const opened = await streams.open(FOLDER, file);
    expect([opened.contentType, opened.size]).toEqual([contentType, size]);
    const chunks = await collect(opened.chunks);
    expect(chunks.every((c) => c.length <= STREAM_CHUNK_BYTES)).toBe(true);
    expect(Buffer.concat(chunks).length).toBe(size);
  });

  it.each([
    ['a missing file', FOLDER, 'seg9.ts'],
    ['a type a stream does not hold', FOLDER, 'notes.txt'],
    ['a path instead of a name', FOLDER, '../thumbnails/0.jpg'],
    ['a hidden file', FOLDER, '.index.m3u8'],
    ['a video that does not exist (deleted)', 'videos/6528dde58f9cd95a98cbd079/hls/', 'index.m3u8'],
    ['a video without a stream', 'videos/6528dde58f9cd95a98cbd078/hls/', 'index.m3u8'],
    ["the video's other folder", `videos/${VIDEO}/thumbnails/`, '0.jpg'],
    ['a folder that is no stream folder', 'uploads/x/', 'index.m3u8'],
  ])('answers resource_not_exist for %s', async (_label, folder, file) => {
    expect(await codeOf(streams.open(folder, file))).toBe('resource_not_exist');
  });

  it('says so when it has no blob store', async () => {
    const without = createStreamService({ store, blobs: undefined });
    expect(await codeOf(without.open(FOLDER, 'index.m3u8'))).toBe('service_unavailable');
  });
});

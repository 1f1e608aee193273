import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_INDEXING_RULES, probe, STILL_VIDEO, stillVideo, validateForIndexing } from '@vus/media';
import { codeOf, photoPath } from '@vus/testing';

jest.setTimeout(60_000);

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'vus-still-'))));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('stillVideo', () => {
  it.each([
    // 400x400 is kept; the phone (400x217) is padded to 360 high.
    ['cat', 400, 400],
    ['phone', 400, 360],
  ] as const)('makes %s a still video the indexing pipeline accepts (%i x %i)', async (name, width, height) => {
    const out = join(dir, `${name}.mp4`);
    await stillVideo(await photoPath(name), out);
    const info = await probe(out);
    expect(info.video).toMatchObject({ codec: 'h264', width, height });
    expect(info.durationSec).toBeCloseTo(STILL_VIDEO.durationSec, 0);
    expect(validateForIndexing(info, DEFAULT_INDEXING_RULES)).toEqual([]);
  });

  it('scales a large photo into the bound, with even dimensions', async () => {
    const out = join(dir, 'people.mp4');
    await stillVideo(await photoPath('people'), out);
    const { video } = await probe(out);
    expect(Math.max(video.width, video.height)).toBeLessThanOrEqual(STILL_VIDEO.maxSide);
    expect([video.width % 2, video.height % 2]).toEqual([0, 0]);
  });

  it('refuses a file that is not an image', async () => {
    const text = join(dir, 'notes.txt');
    await writeFile(text, 'not an image at all\n'.repeat(20));
    expect(await codeOf(stillVideo(text, join(dir, 'text.mp4')))).toBe('unsupported_file_type');
  });
});

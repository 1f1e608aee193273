import { videoBlobPrefix } from '@vus/blob';
import { systemMetadata } from '../src/worker/stages/inputs';
import { fetchedMediaKey } from '../src/worker/stages/fetch';
import { mediaUsageKey } from '../src/worker/stages/reserve';
import { thumbnailKey } from '../src/worker/stages/store';
import { hlsPrefix } from '../src/worker/stages/stream';

// What the stages write where: a video's thumbnails and stream lie under its folder (its deletion removes them).
describe('the stages’ keys', () => {
  it.each([
    ['a thumbnail, by its millisecond', thumbnailKey('v1', 2.5), 'videos/v1/thumbnails/2500.jpg'],
    ['a thumbnail, rounded to the millisecond', thumbnailKey('v1', 0.0004), 'videos/v1/thumbnails/0.jpg'],
    ['the stream folder', hlsPrefix('v1'), 'videos/v1/hls/'],
    ['a fetched video_url', fetchedMediaKey('t1'), 'uploads/t1/fetched'],
    ['the media minutes', mediaUsageKey('t1'), 'task:t1'],
  ])('%s', (_case, key, expected) => {
    expect(key).toBe(expected);
  });

  it.each([thumbnailKey('v1', 3), hlsPrefix('v1')])('%s lies under the video’s folder', (key) => {
    expect(key.startsWith(videoBlobPrefix('v1'))).toBe(true);
  });
});

describe('systemMetadata', () => {
  const probed = { durationSec: 12.34567, sizeBytes: 1000, video: { fps: 29.97002997, width: 640, height: 360 } };
  it('rounds duration and fps to the thousandth', () => {
    const task = { filename: 'a.mp4' } as Parameters<typeof systemMetadata>[0];
    expect(systemMetadata(task, probed as Parameters<typeof systemMetadata>[1])).toEqual({
      filename: 'a.mp4',
      duration: 12.346,
      fps: 29.97,
      width: 640,
      height: 360,
      size: 1000,
    });
  });
});

import { deletedVideoBlobs, videoOfStreamFolder, videoStreamFolder } from '../src';

describe('deletedVideoBlobs', () => {
  it.each([
    [
      'media and thumbnails, each once',
      ['v1', ['uploads/u1/video_file-0', 'videos/v1/thumbnails/0.jpg', 'videos/v1/thumbnails/0.jpg']],
      { folder: 'videos/v1/', media: ['uploads/u1/video_file-0'], invalid: [] },
    ],
    ['no blobs known (a URL task that failed late)', ['v1', []], { folder: 'videos/v1/', media: [], invalid: [] }],
    [
      'keys that could leave the store',
      ['v1', ['../etc/passwd', '/abs', 'ok']],
      { folder: 'videos/v1/', media: ['ok'], invalid: ['../etc/passwd', '/abs'] },
    ],
    [
      "another video's folder is not this one's",
      ['v1', ['videos/v10/thumbnails/0.jpg', 'videos/v1/hls/index.m3u8']],
      { folder: 'videos/v1/', media: ['videos/v10/thumbnails/0.jpg'], invalid: [] },
    ],
    [
      'an empty video id (the folder would be every video)',
      ['', ['videos/v1/thumbnails/0.jpg']],
      { folder: undefined, media: ['videos/v1/thumbnails/0.jpg'], invalid: [] },
    ],
    ['a video id with a slash', ['v1/../v2', []], { folder: undefined, media: [], invalid: [] }],
    ['a video id that is a dot name', ['..', []], { folder: undefined, media: [], invalid: [] }],
  ] as const)('%s', (_name, [videoId, keys], expected) => {
    expect(deletedVideoBlobs(videoId, keys)).toEqual(expected);
  });
});

describe('videoOfStreamFolder', () => {
  it('reads back the folder videoStreamFolder makes', () => {
    expect(videoOfStreamFolder(videoStreamFolder('6528dde58f9cd95a98cbd077'))).toBe('6528dde58f9cd95a98cbd077');
  });

  it.each([
    'videos/v1/',
    'videos/v1/hls',
    'videos/v1/hls/index.m3u8',
    'videos/../hls/',
    'videos/.v1/hls/',
    'videos/v1/x/hls/',
    'uploads/v1/hls/',
    '',
  ])('%j is no stream folder', (folder) => {
    expect(videoOfStreamFolder(folder)).toBeUndefined();
  });
});

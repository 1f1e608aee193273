import { needsStill, stillVideoKey } from '../src/worker/stages/still';

describe('needsStill', () => {
  // A task taken over from a worker that died mid-conversion has no media yet: the still is made again.
  it.each([
    ['an image task before its still is stored', { kind: 'image', blobKey: 'assets/a/file' }, null, true],
    ['an image task whose still is stored', { kind: 'image', blobKey: 'assets/a/file' }, stillVideoKey('t1'), false],
    ['an upload', { kind: 'upload', blobKey: 'uploads/t1/video' }, 'uploads/t1/video', false],
    ['a video_url not fetched yet', { kind: 'url', url: 'https://example.com/v.mp4' }, null, false],
  ] as const)('%s', (_case, source, mediaBlobKey, expected) => {
    expect(needsStill({ source, mediaBlobKey })).toBe(expected);
  });
});

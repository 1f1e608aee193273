import { readTask, readVideo } from '../src/api';

describe('readTask', () => {
  it('reads status, video and v1.2 percentage', () => {
    expect(readTask({ _id: 't', status: 'indexing', video_id: 'v', process: { percentage: 42.5 } })).toEqual({
      id: 't',
      status: 'indexing',
      videoId: 'v',
      percentage: 42.5,
      error: undefined,
    });
  });
  it("keeps a failed task's reason as the API words it", () => {
    const task = readTask({
      _id: 't',
      status: 'failed',
      error: { code: 'parameter_invalid', message: 'The video_url could not be fetched.' },
    });
    expect(task.error).toEqual({ code: 'parameter_invalid', message: 'The video_url could not be fetched.' });
  });
});

describe('readVideo', () => {
  it('reads v1.2 metadata and the stream', () => {
    const video = readVideo({
      _id: 'v',
      metadata: { filename: 'a.mp4', duration: 12, width: 1280, height: 720 },
      hls: { video_url: '/hls/x/index.m3u8', status: 'COMPLETE', thumbnail_urls: ['/t.jpg'] },
    });
    expect(video).toMatchObject({
      id: 'v',
      filename: 'a.mp4',
      duration: 12,
      streamUrl: '/hls/x/index.m3u8',
      streamStatus: 'COMPLETE',
      thumbnailUrl: '/t.jpg',
    });
  });
  it('reads v1.3 system_metadata, and a video without a stream', () => {
    expect(readVideo({ _id: 'v', system_metadata: { filename: 'b.mp4', duration: 5 } })).toMatchObject({
      filename: 'b.mp4',
      duration: 5,
      streamUrl: undefined,
      thumbnailUrl: undefined,
    });
  });
});

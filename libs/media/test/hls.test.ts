import { isMediaError, parseHlsPlaylist, planHls, type MediaProbe } from '@vus/media';

type Streams = Pick<MediaProbe, 'video' | 'audio'>;

const h264 = (overrides: Partial<MediaProbe['video']> = {}): MediaProbe['video'] => ({
  codec: 'h264',
  width: 1280,
  height: 720,
  fps: 25,
  pixelFormat: 'yuv420p',
  ...overrides,
});
const aac = { codec: 'aac', sampleRate: 48000, channels: 2 };

describe('planHls', () => {
  it.each<[string, Streams, Parameters<typeof planHls>[1], ReturnType<typeof planHls>]>([
    ['720p H.264 with AAC is copied whole', { video: h264(), audio: aac }, {}, { video: 'copy', audio: 'copy' }],
    [
      'a JPEG-range H.264 picture is copied too',
      { video: h264({ pixelFormat: 'yuvj420p' }), audio: aac },
      {},
      { video: 'copy', audio: 'copy' },
    ],
    ['a silent H.264 video has no audio either way', { video: h264() }, {}, { video: 'copy', audio: 'none' }],
    [
      'H.264 with Opus: picture copied, audio made AAC',
      { video: h264(), audio: { ...aac, codec: 'opus' } },
      {},
      { video: 'copy', audio: 'encode' },
    ],
    [
      '1080p is taller than the cap: encoded (audio with it)',
      { video: h264({ width: 1920, height: 1080 }), audio: aac },
      {},
      { video: 'encode', audio: 'encode' },
    ],
    [
      '1080p under a 1080 cap is copied',
      { video: h264({ width: 1920, height: 1080 }), audio: aac },
      { maxHeight: 1080 },
      { video: 'copy', audio: 'copy' },
    ],
    [
      'a rotated phone video would lose its rotation: encoded',
      { video: h264({ width: 720, height: 1280, rotation: -90 }), audio: aac },
      { maxHeight: 1280 },
      { video: 'encode', audio: 'encode' },
    ],
    [
      '10-bit H.264 does not play everywhere: encoded',
      { video: h264({ pixelFormat: 'yuv420p10le' }), audio: aac },
      {},
      { video: 'encode', audio: 'encode' },
    ],
    ['an unknown pixel format is not trusted', { video: h264({ pixelFormat: undefined }) }, {}, { video: 'encode', audio: 'none' }],
    ['HEVC is encoded', { video: h264({ codec: 'hevc' }), audio: aac }, {}, { video: 'encode', audio: 'encode' }],
    ['copy: never always encodes', { video: h264(), audio: aac }, { copy: 'never' }, { video: 'encode', audio: 'encode' }],
  ])('%s', (_name, streams, options, expected) => {
    expect(planHls(streams, options)).toEqual(expected);
  });
});

describe('parseHlsPlaylist', () => {
  it('reads the target duration, the segments with their durations, the type and the end', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-TARGETDURATION:4',
      '#EXT-X-MEDIA-SEQUENCE:0',
      '#EXT-X-PLAYLIST-TYPE:VOD',
      '#EXT-X-INDEPENDENT-SEGMENTS',
      '#EXTINF:4.000000,',
      'seg0.ts',
      '#EXTINF:3.520000,',
      'seg1.ts',
      '#EXT-X-ENDLIST',
      '',
    ].join('\n');
    expect(parseHlsPlaylist(text)).toEqual({
      targetDurationSec: 4,
      playlistType: 'VOD',
      ended: true,
      segments: [
        { uri: 'seg0.ts', durationSec: 4 },
        { uri: 'seg1.ts', durationSec: 3.52 },
      ],
    });
  });

  it('tells an unfinished playlist by its missing ENDLIST', () => {
    expect(parseHlsPlaylist('#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXTINF:6,\r\nseg0.ts\r\n')).toMatchObject({
      ended: false,
      segments: [{ uri: 'seg0.ts', durationSec: 6 }],
    });
  });

  it.each([
    ['text without the header', 'seg0.ts\n'],
    ['a segment without #EXTINF', '#EXTM3U\nseg0.ts\n'],
    ['an #EXTINF that is not a number', '#EXTM3U\n#EXTINF:long,\nseg0.ts\n'],
  ])('rejects %s as corrupt', (_name, text) => {
    let caught: unknown;
    try {
      parseHlsPlaylist(text);
    } catch (error) {
      caught = error;
    }
    expect(isMediaError(caught)).toBe(true);
    expect(caught).toMatchObject({ failure: 'corrupt' });
  });
});

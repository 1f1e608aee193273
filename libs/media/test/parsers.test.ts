import { frameDifference, FrameChangeDetector, parseSubtitleText, shotsFromBoundaries } from '@vus/media';
import { parseWavHeader } from '../src/audio';
import { decodesReferenceFramesOnly, outputSize } from '../src/frames';
import { allowlistedInput, classifyInputFailure, inputArguments } from '../src/input';
import { classifyProbeFailure, describeProbe } from '../src/probe';
import { parseSceneScores } from '../src/shots';

describe('parseSubtitleText', () => {
  it('reads SRT cues with styling removed and lines joined', () => {
    const srt =
      '1\r\n00:00:00,500 --> 00:00:03,000\r\n<i>Hello</i> there,\r\n{\\an8}friend.\r\n\r\n2\r\n01:02:03,040 --> 01:02:04,5\r\nSecond\r\n';
    expect(parseSubtitleText(srt)).toEqual([
      { startSec: 0.5, endSec: 3, text: 'Hello there, friend.' },
      { startSec: 3723.04, endSec: 3724.5, text: 'Second' },
    ]);
  });

  it('reads WebVTT with a header, NOTE blocks, cue ids and short timestamps', () => {
    const vtt = 'WEBVTT\n\nNOTE made by hand\n\nintro\n00:01.000 --> 00:02.500 align:start\nOne\n\n00:00:03.000 --> 00:00:04.000\nTwo';
    expect(parseSubtitleText(vtt)).toEqual([
      { startSec: 1, endSec: 2.5, text: 'One' },
      { startSec: 3, endSec: 4, text: 'Two' },
    ]);
  });

  it('accepts an empty file and an empty WebVTT, rejects text without cues', () => {
    expect(parseSubtitleText('')).toEqual([]);
    expect(parseSubtitleText('WEBVTT\n')).toEqual([]);
    expect(() => parseSubtitleText('just some words')).toThrow(expect.objectContaining({ failure: 'corrupt' }));
  });
});

describe('parseSceneScores and shotsFromBoundaries', () => {
  const log = [
    '[Parsed_metadata_2 @ 0x55] frame:0    pts:51200   pts_time:4',
    '[Parsed_metadata_2 @ 0x55] lavfi.scene_score=0.912000',
    '[Parsed_metadata_2 @ 0x55] frame:1    pts:102400  pts_time:8.04',
    '[Parsed_metadata_2 @ 0x55] lavfi.scene_score=0.650000',
  ];

  it('pairs each frame time with its score', () => {
    expect(parseSceneScores(log)).toEqual([
      { timeSec: 4, score: 0.912 },
      { timeSec: 8.04, score: 0.65 },
    ]);
  });

  it('cuts the whole duration into consecutive shots', () => {
    expect(shotsFromBoundaries(parseSceneScores(log), 12)).toEqual([
      { startSec: 0, endSec: 4 },
      { startSec: 4, endSec: 8.04 },
      { startSec: 8.04, endSec: 12 },
    ]);
    expect(shotsFromBoundaries([], 5)).toEqual([{ startSec: 0, endSec: 5 }]);
  });
});

describe('classifyProbeFailure', () => {
  it.each([
    [
      'a recognised but unreadable container is broken',
      '[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5648] moov atom not found\ninput: Invalid data found when processing input',
      'video_file_broken',
      /mov container: moov atom not found/,
    ],
    [
      'content no demuxer recognises is unsupported',
      'input: Invalid data found when processing input',
      'unsupported_file_type',
      /not in a video format/,
    ],
    [
      'a playlist is refused as one',
      "[hls,applehttp @ 0x3c35] Format not on whitelist 'mov,matroska'\ninput: Invalid argument",
      'unsupported_file_type',
      /a playlist \(hls\) that lists other files/,
    ],
    [
      'a DASH manifest too',
      "[dash @ 0x320e] Format not on whitelist 'mov,matroska'\ninput: Invalid argument",
      'unsupported_file_type',
      /a playlist \(dash\)/,
    ],
    [
      'a text format is not a container',
      "[srt @ 0x320e] Format not on whitelist 'mov,matroska'\ninput: Invalid argument",
      'unsupported_file_type',
      /in the srt format, which is not a video container/,
    ],
  ])('%s', (_name, stderr, code, message) => {
    const error = classifyProbeFailure(stderr);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });
});

describe('describeProbe', () => {
  const stream = { index: 0, codec_type: 'video', codec_name: 'h264', width: 1920, height: 1080, avg_frame_rate: '30000/1001' };

  it('reads a rotated phone video as portrait, fps from the average rate', () => {
    const probe = describeProbe(
      {
        format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '12.5', tags: { major_brand: 'qt  ' } },
        streams: [{ ...stream, side_data_list: [{ rotation: -90 }] }],
      },
      100,
    );
    expect(probe).toMatchObject({
      container: 'mov',
      durationSec: 12.5,
      video: { width: 1080, height: 1920, fps: 29.97, rotation: -90 },
      hasAudio: false,
    });
  });

  it('says when frames are stored out of display order (B-frames)', () => {
    const mp4 = { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: 5 };
    expect(describeProbe({ format: mp4, streams: [{ ...stream, has_b_frames: 2 }] }, 1).video.hasBFrames).toBe(true);
    expect(describeProbe({ format: mp4, streams: [{ ...stream, has_b_frames: 0 }] }, 1).video).not.toHaveProperty('hasBFrames');
    expect(describeProbe({ format: mp4, streams: [stream] }, 1).video).not.toHaveProperty('hasBFrames');
  });

  it('names the allowlisted demuxer every later run is pinned to', () => {
    expect(describeProbe({ format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: 5 }, streams: [stream] }, 1).demuxer).toBe('mov');
    expect(describeProbe({ format: { format_name: 'matroska,webm', duration: 5 }, streams: [stream] }, 1).demuxer).toBe('matroska');
  });

  it.each([
    ['an HLS playlist', { format_name: 'hls', duration: 10 }, [stream], 'not_a_container'],
    ['a DASH manifest', { format_name: 'dash', duration: 10 }, [stream], 'not_a_container'],
    ['raw H.264 (no container)', { format_name: 'h264', duration: 10 }, [stream], 'not_a_container'],
    ['a still image', { format_name: 'png_pipe' }, [stream], 'not_a_video'],
    [
      'audio with cover art only',
      { format_name: 'mp3', duration: '3' },
      [
        { index: 0, codec_type: 'audio', codec_name: 'mp3' },
        { ...stream, disposition: { attached_pic: 1 } },
      ],
      'not_a_video',
    ],
    ['no duration', { format_name: 'matroska,webm' }, [stream], 'corrupt'],
  ])('rejects %s', (_name, format, streams, failure) => {
    expect(() => describeProbe({ format, streams }, 1)).toThrow(expect.objectContaining({ failure }));
  });

  it('tells WebM from Matroska by codecs', () => {
    const vp9 = { ...stream, codec_name: 'vp9' };
    expect(describeProbe({ format: { format_name: 'matroska,webm', duration: 5 }, streams: [vp9] }, 1).container).toBe('webm');
    expect(describeProbe({ format: { format_name: 'matroska,webm', duration: 5 }, streams: [stream] }, 1).container).toBe('matroska');
  });
});

describe('inputArguments', () => {
  it('opens only the file protocol and only video containers, pinned to the probed demuxer', () => {
    expect(inputArguments('/work/a:b.mp4', 'mov')).toEqual([
      '-f',
      'mov',
      '-format_whitelist',
      'mov,matroska,avi,mpegts,mpeg,flv,asf,ogg,mxf',
      '-protocol_whitelist',
      'file',
      '-i',
      'file:/work/a:b.mp4',
    ]);
    expect(inputArguments('/work/in')).toEqual([
      '-format_whitelist',
      'mov,matroska,avi,mpegts,mpeg,flv,asf,ogg,mxf',
      '-protocol_whitelist',
      'file',
      '-i',
      'file:/work/in',
    ]);
  });

  it.each(['hls', 'dash', 'concat', 'tty', 'image2', 'mov,mp4'])('refuses to pin %s', (demuxer) => {
    expect(() => inputArguments('/work/in', demuxer)).toThrow(expect.objectContaining({ code: 'unsupported_file_type' }));
  });
});

describe('allowlistedInput', () => {
  it('opens a file, as a file: URL, with only the demuxers given (a still image’s)', () => {
    expect(allowlistedInput('/work/photo:1', ['png_pipe', 'jpeg_pipe'])).toEqual([
      '-format_whitelist',
      'png_pipe,jpeg_pipe',
      '-protocol_whitelist',
      'file',
      '-i',
      'file:/work/photo:1',
    ]);
  });
});

describe('classifyInputFailure', () => {
  it.each([
    [
      'a format refused by the allowlist',
      "[hls @ 0x1] Format not on whitelist 'mov'\nfile:/w/in: Invalid argument",
      'unsupported_file_type',
    ],
    [
      'content that is not what the pinned demuxer reads',
      '[mov,mp4,m4a,3gp,3g2,mj2 @ 0x1] moov atom not found\nfile:/w/in: Invalid data found when processing input',
      'video_file_broken',
    ],
    ['another failure (left to the step)', 'Error initializing output stream 0:0', undefined],
  ])('%s', (_name, stderr, code) => {
    expect(classifyInputFailure(stderr)?.code).toBe(code);
  });
});

describe('frameDifference and FrameChangeDetector', () => {
  const flat = (value: number) => new Uint8Array(1024).fill(value);
  const withPatch = (cells: number, value: number) => {
    const s = flat(100);
    s.fill(value, 0, cells);
    return s;
  };

  it('measures mean difference and the changed share', () => {
    expect(frameDifference(flat(100), flat(100))).toEqual({ meanAbsDiff: 0, changedFraction: 0 });
    expect(frameDifference(flat(100), flat(110))).toEqual({ meanAbsDiff: 10, changedFraction: 0 });
    expect(frameDifference(flat(100), withPatch(512, 200))).toEqual({ meanAbsDiff: 50, changedFraction: 0.5 });
  });

  it.each([
    ['the same picture', flat(100), false],
    ['encoder noise (±10 everywhere)', flat(110), false],
    ['a small new word (20 cells)', withPatch(20, 250), true],
    ['a few noisy cells (5)', withPatch(5, 250), false],
    ['a new scene', flat(30), true],
  ])('after a first frame, %s → changed %s', (_name, next, changed) => {
    const detector = new FrameChangeDetector();
    expect(detector.hasChanged(flat(100))).toBe(true);
    expect(detector.hasChanged(next)).toBe(changed);
  });

  it('compares with the last frame it let through, so slow drift adds up', () => {
    const detector = new FrameChangeDetector();
    detector.hasChanged(flat(100));
    expect(detector.hasChanged(flat(108))).toBe(false);
    expect(detector.hasChanged(flat(116))).toBe(true);
  });

  it.each([
    ['a small new word (20 cells)', withPatch(20, 250), false],
    ['movement over a third of the picture (mean 6.3)', withPatch(341, 119), false],
    ['a cut to another picture (mean 70)', flat(30), true],
    ['half of the picture replaced (mean 50)', withPatch(512, 200), true],
  ])('with minMeanDifference 10, %s → changed %s', (_name, next, changed) => {
    const detector = new FrameChangeDetector({ minMeanDifference: 10 });
    expect(detector.hasChanged(flat(100))).toBe(true);
    expect(detector.hasChanged(next)).toBe(changed);
  });
});

describe('outputSize', () => {
  it.each([
    [1280, 720, 640, { width: 640, height: 360 }],
    [1280, 720, undefined, { width: 1280, height: 720 }],
    [640, 480, 1280, { width: 640, height: 480 }],
    [1080, 1920, 225, { width: 226, height: 402 }],
  ])('%dx%d at width %s', (w, h, requested, size) => {
    expect(outputSize(w, h, requested)).toEqual(size);
  });
});

describe('parseWavHeader', () => {
  it('walks to the data chunk past a LIST chunk', () => {
    const header = Buffer.alloc(70);
    header.write('RIFF', 0, 'ascii');
    header.write('WAVE', 8, 'ascii');
    header.write('fmt ', 12, 'ascii');
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(16000, 24);
    header.writeUInt16LE(16, 34);
    header.write('LIST', 36, 'ascii');
    header.writeUInt32LE(8, 40);
    header.write('data', 52, 'ascii');
    header.writeUInt32LE(32000, 56);
    expect(parseWavHeader(header, 60 + 32000)).toEqual({
      sampleRate: 16000,
      channels: 1,
      bitsPerSample: 16,
      dataOffset: 60,
      dataBytes: 32000,
      durationSec: 1,
    });
  });
});

describe('decodesReferenceFramesOnly', () => {
  it.each([
    ['B-frames, one frame a second of 25', true, 25, 1, true],
    ['B-frames, a quarter of the frame rate', true, 24, 6, true],
    ['B-frames, close to the frame rate', true, 25, 10, false],
    ['B-frames, every frame', true, 30, 30, false],
    ['no B-frames (non-reference frames may be most of the stream)', false, 25, 1, false],
    ['an unknown frame rate', true, 0, 1, false],
  ])('%s: %s', (_, hasBFrames, streamFps, sampleFps, expected) => {
    const probe = {
      video: { codec: 'h264', width: 640, height: 360, fps: streamFps, ...(hasBFrames ? { hasBFrames: true as const } : {}) },
    };
    expect(decodesReferenceFramesOnly(probe, sampleFps)).toBe(expected);
  });
});

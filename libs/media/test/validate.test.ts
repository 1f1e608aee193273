import { isApiError } from '@vus/core';
import { DEFAULT_INDEXING_RULES, mediaProblemError, validateForIndexing, type MediaProbe } from '@vus/media';

function probeOf(overrides: { durationSec?: number; width?: number; height?: number; hasAudio?: boolean }): MediaProbe {
  return {
    container: 'mp4',
    demuxer: 'mov',
    durationSec: overrides.durationSec ?? 60,
    sizeBytes: 1_000_000,
    video: { codec: 'h264', width: overrides.width ?? 1280, height: overrides.height ?? 720, fps: 25 },
    hasAudio: overrides.hasAudio ?? true,
    ...(overrides.hasAudio === false ? {} : { audio: { codec: 'aac', sampleRate: 48000, channels: 2 } }),
    subtitles: [],
  };
}

describe('validateForIndexing', () => {
  it.each([
    ['a 60 s 720p video', {}, []],
    ['exactly 4 s', { durationSec: 4 }, []],
    ['3.9 s', { durationSec: 3.9 }, ['video_duration_too_short']],
    ['2 s', { durationSec: 2 }, ['video_duration_too_short']],
    ['exactly 2 h', { durationSec: 7200 }, []],
    ['2 h and a second', { durationSec: 7201 }, ['video_duration_too_long']],
    ['exactly 360x360', { width: 360, height: 360 }, []],
    ['320x240', { width: 320, height: 240 }, ['video_resolution_too_low']],
    ['640x359', { width: 640, height: 359 }, ['video_resolution_too_low']],
    ['exactly 5184x2160', { width: 5184, height: 2160 }, []],
    ['5185x2160', { width: 5185, height: 2160 }, ['video_resolution_too_high']],
    ['3840x2161', { width: 3840, height: 2161 }, ['video_resolution_too_high']],
    ['portrait 2160x3840 (the landscape limit turned)', { width: 2160, height: 3840 }, []],
    ['portrait 1080x1920', { width: 1080, height: 1920 }, []],
    ['portrait 2160x5185', { width: 2160, height: 5185 }, ['video_resolution_too_high']],
    ['too short and too small', { durationSec: 2, width: 320, height: 240 }, ['video_duration_too_short', 'video_resolution_too_low']],
    ['silent, audio not required', { hasAudio: false }, []],
  ])('%s → %j', (_name, overrides, codes) => {
    expect(validateForIndexing(probeOf(overrides)).map((p) => p.code)).toEqual(codes);
  });

  it('reports a missing audio track when the index needs audio', () => {
    const problems = validateForIndexing(probeOf({ hasAudio: false }), { requireAudio: true });
    expect(problems.map((p) => p.code)).toEqual(['audio_file_broken']);
    expect(problems[0]!.message).toMatch(/no audio track/);
    expect(validateForIndexing(probeOf({ hasAudio: true }), { requireAudio: true })).toEqual([]);
  });

  it('says the allowed range and the current resolution in the message', () => {
    const [problem] = validateForIndexing(probeOf({ width: 320, height: 240 }));
    expect(problem!.message).toBe(
      'The video resolution is too low. The resolution must be between 360x360 and 5184x2160. Current resolution is 320x240.',
    );
  });

  it('says how long the video is and what is allowed', () => {
    expect(validateForIndexing(probeOf({ durationSec: 2 }))[0]!.message).toBe(
      'The video is too short: 2 s. The duration must be between 4 s and 2 h; upload a longer video.',
    );
    expect(validateForIndexing(probeOf({ durationSec: 7300.4 }))[0]!.message).toBe(
      'The video is too long: 2 h 1 min 40 s. The duration must be between 4 s and 2 h; split it into shorter videos.',
    );
  });

  it('takes custom rules (a model with a 20 min limit)', () => {
    expect(validateForIndexing(probeOf({ durationSec: 1500 }), { maxDurationSec: 1200 }).map((p) => p.code)).toEqual([
      'video_duration_too_long',
    ]);
    expect(DEFAULT_INDEXING_RULES.maxDurationSec).toBe(7200);
  });

  it('turns a problem into an ApiError with its code, a 400', () => {
    const error = mediaProblemError({ code: 'video_resolution_too_low', message: 'too low' });
    expect(isApiError(error)).toBe(true);
    expect(error.code).toBe('video_resolution_too_low');
    expect(error.httpStatus).toBe(400);
  });
});

import { ApiError, type ErrorCode } from '@vus/core';

/**
 * Why a media operation failed. The worker decides from `code` (and `retryable`, inherited from the
 * error table) whether the task fails for good (`video_file_broken`, `unsupported_file_type`) or may
 * be tried again (`deadline_exceeded`, `service_unavailable`).
 */
export type MediaFailure =
  /** The content is not a container ffprobe recognises (random bytes, a text file). */
  | 'unrecognised'
  /**
   * A format that is not a video container: a playlist or manifest (HLS, DASH, ffconcat) that names
   * other files, a text or an image format. Refused before anything it lists is opened.
   */
  | 'not_a_container'
  /** A recognised container that cannot be read (truncated, corrupt, missing index). */
  | 'corrupt'
  /** Readable, but not a video: a still image, an audio-only file. */
  | 'not_a_video'
  /** The operation needs an audio track and the file has none. */
  | 'no_audio'
  /** ffmpeg produced no frame where one was asked for (a timestamp past the end). */
  | 'no_frame'
  /** ffmpeg/ffprobe ran longer than the timeout and was killed. */
  | 'timeout'
  /** The caller's AbortSignal fired; the child was killed. */
  | 'aborted'
  /** ffmpeg/ffprobe is not installed or not on PATH. */
  | 'tool_missing'
  /** ffmpeg/ffprobe exited with an error we do not classify further. */
  | 'tool_failed';

const CODE_BY_FAILURE: Readonly<Record<MediaFailure, ErrorCode>> = {
  unrecognised: 'unsupported_file_type',
  not_a_container: 'unsupported_file_type',
  corrupt: 'video_file_broken',
  not_a_video: 'unsupported_file_type',
  no_audio: 'audio_file_broken',
  no_frame: 'parameter_invalid',
  timeout: 'deadline_exceeded',
  aborted: 'request_canceled_or_timed_out',
  tool_missing: 'service_unavailable',
  tool_failed: 'internal_error',
};

const MEDIA_ERROR = Symbol.for('vus.MediaError');

/** An ApiError (so it can travel to a client as is) that also says which media failure it is. */
export class MediaError extends ApiError {
  readonly [MEDIA_ERROR] = true;

  constructor(
    readonly failure: MediaFailure,
    message: string,
    /** The last lines ffmpeg/ffprobe wrote to stderr, for logs (never shown to API clients). */
    readonly toolOutput?: string,
  ) {
    super(CODE_BY_FAILURE[failure], message);
  }
}

export function isMediaError(value: unknown): value is MediaError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MEDIA_ERROR] === true;
}

import { ApiError } from '@vus/core';

/**
 * The largest transcription file (SRT, WebVTT or text) accepted, uploaded (`transcription_file`)
 * or fetched (`transcription_url`). Two hours of dense subtitles are about 200 KB; without a cap a
 * 2 GiB "transcription" was read whole into a worker's memory. The gateway refuses a larger part at
 * upload, the worker reads at most this much.
 */
export const MAX_TRANSCRIPTION_BYTES = 5 * 1024 * 1024;

export function transcriptionTooLarge(param: string, maxBytes = MAX_TRANSCRIPTION_BYTES): ApiError {
  return new ApiError(
    'payload_too_large',
    `The ${param} is larger than ${maxBytes} bytes; a transcription file may be at most ${maxBytes} bytes.`,
    { param },
  );
}

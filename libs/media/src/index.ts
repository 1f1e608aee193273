/**
 * @vus/media: everything the service does with video files, over the real ffmpeg/ffprobe
 * (`FFMPEG_PATH`/`FFPROBE_PATH`, else the static binaries of the npm packages
 * `@ffmpeg-installer/<platform>` and `@ffprobe-installer/<platform>`, else PATH). Children are
 * spawned with argument lists (never a shell), killed on timeout or abort, and every failure is a
 * MediaError (an ApiError with a media `failure` kind).
 *
 * ```ts
 * const info = await probe(path);                       // container, codecs, size, duration, fps, audio, subtitles
 * const problems = validateForIndexing(info, { requireAudio: onlyConversation });
 * if (problems.length) throw mediaProblemError(problems[0]);
 * for await (const frame of sampleFrames(path, { fps: 1, width: 640, probe: info })) { … }
 * const hls = await makeHls(path, outDir, { probe: info });   // index.m3u8 + seg<n>.ts, ≤ 720p
 * ```
 */
export { MediaError, isMediaError, type MediaFailure } from './errors';
export {
  configureMediaTools,
  mediaTool,
  mediaToolsReport,
  formatMediaToolsReport,
  mediaToolsVersion,
  runFfmpeg,
  type MediaRunOptions,
  type MediaToolPaths,
  type MediaToolsReport,
} from './run';
export {
  chooseMediaTool,
  mediaToolPackage,
  MEDIA_TOOL_ENV,
  type MediaTool,
  type MediaToolSource,
  type ResolvedMediaTool,
  type ToolLookup,
} from './tools';
export { probe, type MediaProbe, type VideoStreamInfo, type AudioStreamInfo, type SubtitleTrack } from './probe';
export { VIDEO_DEMUXERS } from './input';
export { validateForIndexing, mediaProblemError, DEFAULT_INDEXING_RULES, type IndexingRules, type MediaProblem } from './validate';
export { sampleFrames, SIGNATURE_SIZE, type SampleFramesOptions, type SampledFrame } from './frames';
export { FrameChangeDetector, frameDifference, type FrameChangeOptions, type FrameDifference } from './frame-change';
export {
  extractAudio,
  readWavInfo,
  readWavSamples,
  SPEECH_AUDIO_OUTPUT,
  SPEECH_SAMPLE_RATE,
  type ExtractedAudio,
  type WavInfo,
} from './audio';
export { detectShots, shotsFromBoundaries, type DetectShotsOptions, type Shot, type ShotBoundary, type ShotDetection } from './shots';
export { extractSubtitles, parseSubtitleText, type Cue, type SubtitleTrackCues } from './subtitles';
export { thumbnail } from './thumbnail';
export { stillVideo, STILL_VIDEO } from './still';
export {
  makeHls,
  planHls,
  parseHlsPlaylist,
  HLS_PLAYLIST,
  type HlsOptions,
  type HlsPlan,
  type HlsPlaylist,
  type HlsRendition,
  type HlsSegment,
} from './hls';

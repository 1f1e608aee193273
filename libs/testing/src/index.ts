/**
 * @vus/testing: fixtures for tests, generated with the real ffmpeg (never committed). Each video
 * generator returns the file's path and its ground truth (words and their times, subtitle
 * sentences, scenes with their photos and COCO labels), so tests assert against what was made.
 * Files are cached in the OS temp folder by content hash (see fixtureDir).
 *
 * ```ts
 * const { path, truth } = await textScenesVideo();
 * expect(ocrWords(path)).toContainEqual(expect.objectContaining({ text: truth.words[0].text }));
 * ```
 */
export { fixtureDir, cachedFixture } from './cache';
export { PHOTOS, photoPath, fontPath, type PhotoName } from './photos';
export { renderVideo, truthOf, toSrt, type VideoSpec, type SceneSpec, type TextOverlay, type SubtitleCue, type VideoTruth } from './scenes';
export {
  generateVideo,
  textScenesVideo,
  subtitledVideo,
  wordsAndSubtitlesVideo,
  SUBTITLE_SENTENCES,
  objectsVideo,
  silentVideo,
  shortVideo,
  lowResolutionVideo,
  benchmarkVideo,
  randomBytesVideo,
  truncatedVideo,
  topicsVideo,
  type GeneratedVideo,
} from './videos';
export { serveFiles, type FileServer, type FileServerRequest } from './file-server';
export { codeOf, errorOf, type CaughtError } from './errors';
export {
  speechFixture,
  speechFixtures,
  speechFixtureWav,
  speechFixtureExcerpt,
  labelsFound,
  SPEECH_LABEL_TOLERANCE_SEC,
  type SpeechFixture,
  type SpeechLabel,
} from './speech';
export { waitFor } from './wait';
export { startNpmStart, EMBEDDED_MAIN, type NpmStart } from './npm-start';

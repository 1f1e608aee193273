import type { ClassifyClip } from '@vus/grpc/types/classify/v1/ClassifyClip';
import type { ClassifyResultPage } from '@vus/grpc/types/classify/v1/ClassifyResultPage';
import type { ClassScore } from '@vus/grpc/types/classify/v1/ClassScore';
import type { VideoClassification } from '@vus/grpc/types/classify/v1/VideoClassification';
import type { ClassifyNames } from '../routes/classify.schema';
import type { VersionAdapter } from '../versions';
import { presentTokenPageInfo } from './search';

/** The signed URL of a clip's thumbnail, or undefined when it has none (an index without the thumbnail addon). */
export type ClipThumbnail = (clip: ClassifyClip, videoId: string) => string | undefined;

/** py requires a clip's start, end, score, option and prompt. */
function presentClip(clip: ClassifyClip, videoId: string, thumbnailUrl: ClipThumbnail): Record<string, unknown> {
  const thumbnail = thumbnailUrl(clip, videoId);
  return {
    start: clip.start,
    end: clip.end,
    score: clip.score,
    option: clip.option,
    prompt: clip.prompt,
    ...(thumbnail ? { thumbnail_url: thumbnail } : {}),
  };
}

/**
 * A class: py requires name, score and duration_ratio; `detailed_scores` and `clips` only when the
 * request asked for them (classify-service keeps them only then, so later pages know too).
 */
function presentClass(c: ClassScore, videoId: string, thumbnailUrl: ClipThumbnail): Record<string, unknown> {
  const item: Record<string, unknown> = { name: c.name, score: c.score, duration_ratio: c.duration_ratio };
  if (c.detailed_scores)
    item.detailed_scores = {
      max_score: c.detailed_scores.max_score,
      avg_score: c.detailed_scores.avg_score,
      normalized_score: c.detailed_scores.normalized_score,
    };
  if (c.clips.length > 0) item.clips = c.clips.map((clip) => presentClip(clip, videoId, thumbnailUrl));
  return item;
}

const presentVideo = (video: VideoClassification, classesKey: ClassifyNames['classesKey'], thumbnailUrl: ClipThumbnail) => ({
  video_id: video.video_id,
  [classesKey]: video.classes.map((c) => presentClass(c, video.video_id, thumbnailUrl)),
});

/**
 * A classification in the shape the request asked in (API-CONTRACT §5.6): `{data, page_info}`, or
 * for one `video_id` (v1.1, v1.1.1) the video's own `{video_id, classes}`; `labels` where the
 * request said labels.
 */
export function presentClassification(
  page: ClassifyResultPage,
  how: { version: VersionAdapter; thumbnailUrl: ClipThumbnail },
  names: ClassifyNames & { videoId?: string | undefined },
): Record<string, unknown> {
  if (names.singleVideo) {
    const video = page.data[0];
    return video ? presentVideo(video, names.classesKey, how.thumbnailUrl) : { video_id: names.videoId ?? '', [names.classesKey]: [] };
  }
  return {
    data: page.data.map((video) => presentVideo(video, names.classesKey, how.thumbnailUrl)),
    page_info: presentTokenPageInfo(page.page_info, how.version),
  };
}

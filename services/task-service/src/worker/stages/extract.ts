import type { MediaProbe } from '@vus/media';
import { fetchText } from '@vus/fetch';
import type { ExtractorReport, TaskRecord } from '../../tasks/tasks';
import { BRANDS } from '../extract/brands';
import { VideoClipVectors } from '../extract/clip-vectors';
import { extractConversation } from '../extract/conversation';
import { analyseFrames, type FrameModels } from '../extract/frames';
import { logosOf, progressPercent, scenesOf, textInVideo, type TimedValue } from '../extract/timeline';
import type { PipelineDeps } from '../pipeline-deps';
import type { ExtractorPlan } from '../plan';
import { rpcContext, stage } from '../stage';
import type { TaskWriter } from '../task-writer';
import { readTranscriptionBlob } from '../transcription';
import { alongside } from '../alongside';
import type { VideoSource } from './inputs';

export type ExtractDeps = Pick<
  PipelineDeps,
  'index' | 'blobs' | 'models' | 'clipVectors' | 'frames' | 'fetchPolicy' | 'maxTranscriptionBytes' | 'logger'
>;

/** What the extractors found in a task's video, for the stream and store stages. */
export interface ExtractedVideo extends VideoSource {
  report: ExtractorReport;
  conversation: Awaited<ReturnType<typeof extractConversation>> | undefined;
  textValues: TimedValue[];
  logoValues: TimedValue[];
  scenes: ReturnType<typeof scenesOf>;
  frames: Awaited<ReturnType<typeof analyseFrames>>;
  /** The vector model of `frames.vectors` (stored with each vector); undefined without vectors. */
  vectorModel: string | undefined;
  /** Whether faces were embedded (`frames.faces`, for face tracks): the face model ran. */
  facesTracked: boolean;
}

/**
 * The extract stage (progress 0 → 92): the frame extractors the index asks for over the sampled
 * frames and the timelines made of what they saw, and beside them the conversation (speech
 * recognition in processes of its own, or the transcription file), so both cores work.
 */
export async function extractVideo(
  deps: ExtractDeps,
  writer: TaskWriter,
  task: TaskRecord,
  source: VideoSource,
  workDir: string,
  signal: AbortSignal,
): Promise<ExtractedVideo> {
  const { file, plan, probed } = source;
  const report: ExtractorReport = { ran: [], skipped: [] };
  const models = await stage('load models', task, () => frameModels(deps, task, plan, report));
  const [seen, conversation] = await alongside(
    signal,
    (inner) => seeFrames(writer, task, source, models, report.ran.slice(), { ...deps.frames, signal: inner }),
    async (inner) =>
      plan.conversation ? stage('extract conversation', task, () => conversationOf(deps, task, file, probed, workDir, inner)) : undefined,
  );
  const { frames } = seen;
  const vectorModel = clipVectorsOutcome(deps, task, models.embedder, frames, report);
  if (plan.logo && models.textReader) report.ran.push('logo');
  if (conversation?.ran) report.ran.push(conversation.ran);
  if (conversation?.skipped) report.skipped.push({ name: conversation.skipped.extractor, reason: conversation.skipped.reason });
  await writer.progress(task, 92);
  return { ...source, report, conversation, ...seen, vectorModel, facesTracked: models.faceEmbedder !== undefined };
}

/** The frame pass (progress 0 → 85) and the timelines made of what it saw. */
async function seeFrames(
  writer: TaskWriter,
  task: TaskRecord,
  { file, plan, probed }: VideoSource,
  models: FrameModels,
  frameExtractors: string[],
  options: ExtractDeps['frames'] & { signal: AbortSignal },
) {
  let lastReported = 0;
  // Progress writes go one after another (never out of order), without holding up the frames.
  let reporting = Promise.resolve();
  const frames = await stage(
    'extract frames',
    task,
    () =>
      analyseFrames(file, probed, models, {
        ...options,
        onProgress: (position) => {
          const percent = progressPercent(position, probed.durationSec, 0, 85);
          if (percent - lastReported < 5) return;
          lastReported = percent;
          reporting = reporting.then(() => writer.progress(task, percent)).catch(() => undefined);
        },
      }),
    // The frame extractors (detector, OCR, the visual embedder) take each sampled frame in turn.
    { 'vus.extractors': frameExtractors },
  );
  await reporting;
  const duration = probed.durationSec;
  const textValues: TimedValue[] = plan.textInVideo ? textInVideo(frames.observations, frames.step, duration) : [];
  const logoValues: TimedValue[] = plan.logo ? logosOf(frames.observations, BRANDS, frames.step, duration) : [];
  const scenes = plan.visual ? scenesOf(frames.observations, frames.step, duration) : [];
  await writer.progress(task, 85);
  return { frames, textValues, logoValues, scenes };
}

/** The frame models the plan asks for; clip vectors (embed-service) are optional (recorded as skipped when absent). */
async function frameModels(
  deps: Pick<PipelineDeps, 'models' | 'clipVectors'>,
  task: TaskRecord,
  plan: ExtractorPlan,
  report: ExtractorReport,
): Promise<FrameModels> {
  const { models } = deps;
  const chosen: FrameModels = {};
  if (plan.textInVideo || plan.logo) {
    chosen.textReader = await models.find('text_reader');
    if (chosen.textReader) {
      if (plan.textInVideo) report.ran.push('text_in_video');
    } else {
      report.skipped.push({ name: 'text_in_video', reason: missing(deps, 'text_reader') });
    }
  }
  if (plan.visual) {
    chosen.objectDetector = await models.find('object_detector');
    chosen.faceDetector = await models.find('face_detector');
    // Faces embedded for entity search (face tracks); without the model, videos get no face tracks.
    chosen.faceEmbedder = await models.find('face_embedder');
    if (chosen.objectDetector || chosen.faceDetector) report.ran.push('visual');
    else report.skipped.push({ name: 'visual', reason: missing(deps, 'object_detector') });
    const clip = await VideoClipVectors.open(deps.clipVectors, () => rpcContext(task.orgId));
    if (clip instanceof VideoClipVectors) {
      chosen.embedder = clip;
      report.ran.push('clip');
    } else {
      report.skipped.push({ name: 'clip', reason: clip.skipped });
    }
  }
  return chosen;
}

/**
 * The vector model of the frames' vectors, or undefined: when embed-service failed during the
 * video its vectors are dropped (a video half embedded would rank by chance) and the clip
 * extractor is recorded as skipped with the reason; the rest of the video is indexed as usual.
 */
function clipVectorsOutcome(
  deps: Pick<PipelineDeps, 'logger'>,
  task: TaskRecord,
  embedder: FrameModels['embedder'],
  frames: { vectors: unknown[] },
  report: ExtractorReport,
): string | undefined {
  if (!(embedder instanceof VideoClipVectors)) return undefined;
  if (embedder.failure === undefined) return frames.vectors.length > 0 ? embedder.model : undefined;
  deps.logger.warn({ taskId: task.id, reason: embedder.failure }, 'the video is indexed without clip vectors');
  frames.vectors.length = 0;
  report.ran.splice(report.ran.indexOf('clip'), 1);
  report.skipped.push({ name: 'clip', reason: embedder.failure });
  return undefined;
}

/** Why no provider of a capability is loaded, as the registry tells it. */
function missing(deps: Pick<PipelineDeps, 'models'>, capability: string): string {
  const reasons = deps.models
    .status()
    .filter((s) => s.capability === capability)
    .map((s) => `${s.provider}: ${s.reason ?? 'not loaded'}`);
  return reasons.join('; ') || 'no provider is configured';
}

async function conversationOf(deps: ExtractDeps, task: TaskRecord, file: string, probed: MediaProbe, workDir: string, signal: AbortSignal) {
  const source = task.transcription;
  const readTranscription = source
    ? source.kind === 'url'
      ? () => fetchText(source.url, 'transcription_url', { ...deps.fetchPolicy, maxBytes: deps.maxTranscriptionBytes }, signal)
      : () => readTranscriptionBlob(deps.blobs, source.blobKey, deps.maxTranscriptionBytes)
    : undefined;
  const recognizer = await deps.models.find('speech_recognizer');
  // The registry serves the first provider that loads: the loaded one is the one found.
  const name = deps.models.status().find((s) => s.capability === 'speech_recognizer' && s.state === 'loaded')?.provider ?? 'speech';
  return extractConversation({
    file,
    probe: probed,
    language: task.language,
    readTranscription,
    recognizer: recognizer && { name, instance: recognizer },
    recognizerMissing: missing(deps, 'speech_recognizer'),
    workDir,
    signal,
  });
}

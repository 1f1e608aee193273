import { probe, type MediaProbe } from '@vus/media';
import { fetchText } from '@vus/fetch';
import type { ExtractorReport, TaskRecord } from '../../tasks/tasks';
import { BRANDS } from '../extract/brands';
import { VideoClipVectors } from '../extract/clip-vectors';
import { extractConversation } from '../extract/conversation';
import { analyseFrames, type FrameModels } from '../extract/frames';
import { logosOf, progressPercent, scenesOf, textInVideo, type TimedValue } from '../extract/timeline';
import type { PipelineDeps } from '../pipeline-deps';
import { planExtractors, type ExtractorPlan } from '../plan';
import { rpcContext, stage } from '../stage';
import type { TaskWriter } from '../task-writer';
import { readTranscriptionBlob } from '../transcription';
import { indexOf, localMedia } from './inputs';

export type ExtractDeps = Pick<
  PipelineDeps,
  'index' | 'blobs' | 'models' | 'clipVectors' | 'frames' | 'fetchPolicy' | 'maxTranscriptionBytes' | 'logger'
>;

/** What the extractors found in a task's video, for the stream and store stages. */
export interface ExtractedVideo {
  /** The media file in the run's work folder. */
  file: string;
  plan: ExtractorPlan;
  probed: MediaProbe;
  report: ExtractorReport;
  conversation: Awaited<ReturnType<typeof extractConversation>> | undefined;
  textValues: TimedValue[];
  logoValues: TimedValue[];
  scenes: ReturnType<typeof scenesOf>;
  frames: Awaited<ReturnType<typeof analyseFrames>>;
  /** The vector model of `frames.vectors` (stored with each vector); undefined without vectors. */
  vectorModel: string | undefined;
}

/**
 * The extract stage (progress 0 → 92): the frame extractors the index asks for over the sampled
 * frames, the timelines made of what they saw, then the conversation (speech or the transcription file).
 */
export async function extractVideo(
  deps: ExtractDeps,
  writer: TaskWriter,
  task: TaskRecord,
  workDir: string,
  signal: AbortSignal,
): Promise<ExtractedVideo> {
  const index = await indexOf(deps, task);
  const plan = planExtractors(index);
  const file = await localMedia(deps, task, workDir);
  const probed = await stage('probe', task, () => probe(file, { signal }));
  const report: ExtractorReport = { ran: [], skipped: [] };

  const models = await frameModels(deps, task, plan, report);
  let lastReported = 0;
  // Progress writes go one after another (never out of order), without holding up the frames.
  let reporting = Promise.resolve();
  // The frame extractors (detector, OCR, the visual embedder) take each sampled frame in turn.
  const frameExtractors = report.ran.slice();
  const frames = await stage(
    'extract frames',
    task,
    () =>
      analyseFrames(file, probed, models, {
        ...deps.frames,
        signal,
        onProgress: (position) => {
          const percent = progressPercent(position, probed.durationSec, 0, 85);
          if (percent - lastReported < 5) return;
          lastReported = percent;
          reporting = reporting.then(() => writer.progress(task, percent)).catch(() => undefined);
        },
      }),
    { 'vus.extractors': frameExtractors },
  );
  await reporting;
  const vectorModel = clipVectorsOutcome(deps, task, models.embedder, frames, report);
  const duration = probed.durationSec;
  const textValues: TimedValue[] = plan.textInVideo ? textInVideo(frames.observations, frames.step, duration) : [];
  const logoValues: TimedValue[] = plan.logo ? logosOf(frames.observations, BRANDS, frames.step, duration) : [];
  if (plan.logo && models.textReader) report.ran.push('logo');
  const scenes = plan.visual ? scenesOf(frames.observations, frames.step, duration) : [];
  await writer.progress(task, 85);

  const conversation = plan.conversation
    ? await stage('extract conversation', task, () => conversationOf(deps, task, file, probed, workDir, signal))
    : undefined;
  if (conversation?.ran) report.ran.push(conversation.ran);
  if (conversation?.skipped) report.skipped.push({ name: conversation.skipped.extractor, reason: conversation.skipped.reason });
  await writer.progress(task, 92);
  return { file, plan, probed, report, conversation, textValues, logoValues, scenes, frames, vectorModel };
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

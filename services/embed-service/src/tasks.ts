/**
 * Video and audio embed tasks (API-CONTRACT §5.8): created at once (and once per idempotency key),
 * run as jobs of the job queue, results kept for 7 days. The job embeds each clip of the range per
 * option — what its frames show (visual), what is heard (audio: speech and a sound cue), what is
 * said (transcription) — and, when asked, the whole range as one `video` vector per option.
 */
import { ApiError, errors, newId, type Clock } from '@vus/core';
import { embeddingModel } from './model-names';

export const TASK_RULES = {
  /** Seconds per clip (the real API: default 6, range 2–10). */
  defaultClipLength: 6,
  minClipLength: 2,
  maxClipLength: 10,
  /** Frames looked at per second of video: one every two seconds (the detector takes about a second a frame on CPU). */
  framesPerSecond: 0.5,
  /** The longest video an embed task takes (the real API: 4 hours asynchronously). */
  maxDurationSec: 4 * 3600,
  keepMs: 7 * 24 * 3600 * 1000,
} as const;

export type TaskStatus = 'processing' | 'ready' | 'failed';

/** What a vector is of; the wire's legacy `visual-text` is `visual`. */
export type EmbedOption = 'visual' | 'audio' | 'transcription';
export const EMBED_OPTIONS: readonly EmbedOption[] = ['visual', 'audio', 'transcription'];
export type TaskInputType = 'video' | 'audio';
/** A vector of one option, or one of every option fused (embedding_type fused_embedding). */
export type SegmentOption = EmbedOption | 'fused';
export type EmbeddingType = 'separate' | 'fused';

export interface TaskSource {
  url?: string;
  blobKey?: string;
  filename?: string;
}

export interface TaskOptions {
  /** Absent in tasks stored before audio tasks: video. */
  inputType?: TaskInputType;
  /** Absent in tasks stored before options: visual only. */
  embeddingOptions?: EmbedOption[];
  /** One vector per option (separate), one of all of them (fused), or both; absent: separate. */
  embeddingTypes?: EmbeddingType[];
  startSec: number;
  endSec?: number;
  clipLength: number;
  scopes: ('clip' | 'video')[];
}

export interface TaskSegment {
  start: number;
  end: number;
  scope: 'clip' | 'video';
  /** Absent in results stored before options: visual. */
  option?: SegmentOption;
  vector: number[];
}

export interface TaskResult {
  duration: number;
  segments: TaskSegment[];
}

export interface EmbedTaskRecord {
  id: string;
  orgId: string;
  modelName: string;
  status: TaskStatus;
  errorMessage: string | null;
  source: TaskSource;
  options: TaskOptions;
  result: TaskResult | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
}

export interface TaskListQuery {
  from?: Date;
  to?: Date;
  statuses: string[];
  limit: number;
  offset: number;
}

/** What the domain needs stored. */
export interface EmbedTaskStore {
  /** Inserts the task and queues its job in one transaction; with an idempotency key already used, returns that task instead. */
  create(task: EmbedTaskRecord, idempotencyKey: string | undefined): Promise<EmbedTaskRecord>;
  get(orgId: string, id: string): Promise<EmbedTaskRecord | undefined>;
  list(orgId: string, query: TaskListQuery): Promise<{ rows: EmbedTaskRecord[]; total: number }>;
}

export interface NewTaskRequest {
  modelName: string;
  /** video (the default) or audio. */
  inputType?: string;
  /** visual (or visual-text), audio, transcription; empty: the input type's defaults. */
  embeddingOptions?: readonly string[];
  /** separate_embedding and/or fused_embedding; empty: separate. */
  embeddingTypes?: readonly string[];
  source: TaskSource;
  startSec?: number;
  endSec?: number;
  clipLength?: number;
  scopes: readonly string[];
  idempotencyKey?: string;
}

/** The task's options from a request: each limit is `parameter_invalid` naming its wire field. */
export function taskOptions(
  request: Pick<NewTaskRequest, 'inputType' | 'embeddingOptions' | 'embeddingTypes' | 'startSec' | 'endSec' | 'clipLength' | 'scopes'>,
): TaskOptions {
  const inputType = request.inputType || 'video';
  if (inputType !== 'video' && inputType !== 'audio') throw errors.invalid('input_type', 'Embedding tasks take video or audio.');
  const embeddingOptions = taskEmbeddingOptions(inputType, request.embeddingOptions ?? []);
  const clipLength = request.clipLength ?? TASK_RULES.defaultClipLength;
  if (!(clipLength >= TASK_RULES.minClipLength && clipLength <= TASK_RULES.maxClipLength)) {
    throw errors.invalid('video_clip_length', `It must be between ${TASK_RULES.minClipLength} and ${TASK_RULES.maxClipLength} seconds.`);
  }
  const startSec = request.startSec ?? 0;
  if (!(startSec >= 0)) throw errors.invalid('video_start_offset_sec', 'It must be 0 or more.');
  if (request.endSec !== undefined && !(request.endSec > startSec))
    throw errors.invalid('video_end_offset_sec', 'It must be after the start offset.');
  const scopes = request.scopes.length === 0 ? ['clip'] : [...new Set(request.scopes.map((s) => (s === 'asset' ? 'video' : s)))];
  if (scopes.some((s) => s !== 'clip' && s !== 'video')) throw errors.invalid('video_embedding_scope', 'Use clip and/or video.');
  return {
    inputType,
    embeddingOptions,
    embeddingTypes: embeddingTypes(request.embeddingTypes ?? []),
    startSec,
    ...(request.endSec === undefined ? {} : { endSec: request.endSec }),
    clipLength,
    scopes: scopes as TaskOptions['scopes'],
  };
}

/**
 * The options a task embeds: those asked (legacy `visual-text` is `visual`), each once, or by default
 * what the input has — video: visual and audio; audio: audio. Audio has no visual.
 */
export function taskEmbeddingOptions(inputType: TaskInputType, asked: readonly string[]): EmbedOption[] {
  const options = [...new Set(asked.map((o) => (o === 'visual-text' ? 'visual' : o)))];
  const unknown = options.find((o) => !(EMBED_OPTIONS as readonly string[]).includes(o));
  if (unknown !== undefined)
    throw errors.invalid('embedding_option', `Unknown option ${JSON.stringify(unknown.slice(0, 32))}; use visual, audio or transcription.`);
  if (inputType === 'audio' && options.includes('visual')) throw errors.invalid('embedding_option', 'Audio has no visual embedding.');
  if (options.length > 0) return options as EmbedOption[];
  return inputType === 'audio' ? ['audio'] : ['visual', 'audio'];
}

/** The embedding types asked (`separate_embedding`, `fused_embedding`), each once; none: separate. */
export function embeddingTypes(asked: readonly string[]): EmbeddingType[] {
  const types = [...new Set(asked)];
  const unknown = types.find((t) => t !== 'separate_embedding' && t !== 'fused_embedding');
  if (unknown !== undefined)
    throw errors.invalid(
      'embedding_type',
      `Unknown type ${JSON.stringify(unknown.slice(0, 32))}; use separate_embedding and/or fused_embedding.`,
    );
  return types.length === 0 ? ['separate'] : types.map((t) => (t === 'fused_embedding' ? 'fused' : 'separate'));
}

/** A stored task's options and segment option, with the defaults of tasks stored before them. */
export const optionsOf = (task: Pick<EmbedTaskRecord, 'options'>): EmbedOption[] => task.options.embeddingOptions ?? ['visual'];
export const optionOf = (segment: TaskSegment): SegmentOption => segment.option ?? 'visual';

/**
 * Clip windows of a range: `clipLength` seconds each from `start`, the last one shorter
 * (never shorter than a tenth of a second: a sliver of a frame is not a clip).
 */
export function clipWindows(start: number, end: number, clipLength: number): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  for (let at = start; end - at > 0.1; at += clipLength) windows.push({ start: at, end: Math.min(end, at + clipLength) });
  return windows;
}

export function createEmbedTasks(deps: {
  store: EmbedTaskStore;
  clock: Clock;
  queued: () => void;
  /** Removes media stored for a request that made no task (its idempotency key's task already has its own). */
  discardMedia?: (source: TaskSource) => Promise<void>;
}) {
  const { store, clock } = deps;
  return {
    async create(orgId: string, request: NewTaskRequest): Promise<EmbedTaskRecord> {
      const model = embeddingModel(request.modelName);
      if (!request.source.url && !request.source.blobKey)
        throw new ApiError('parameter_not_provided', 'Provide the media by URL or as a file.', { param: 'video_url' });
      const now = clock.now();
      const task: EmbedTaskRecord = {
        id: newId(),
        orgId,
        modelName: model.name,
        status: 'processing',
        errorMessage: null,
        source: request.source,
        options: taskOptions(request),
        result: null,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + TASK_RULES.keepMs),
      };
      const stored = await store.create(task, request.idempotencyKey || undefined);
      if (stored.id !== task.id) await deps.discardMedia?.(request.source);
      deps.queued();
      return stored;
    },
    async get(orgId: string, id: string): Promise<EmbedTaskRecord> {
      const task = await store.get(orgId, id);
      if (!task || task.expiresAt <= clock.now()) throw errors.notFound('Embedding task', id);
      return task;
    },
    list(orgId: string, query: Omit<TaskListQuery, 'from'> & { from?: Date }) {
      // Without dates, the last 7 days (API-CONTRACT §5.8).
      const from = query.from ?? (query.to ? undefined : new Date(clock.now().getTime() - TASK_RULES.keepMs));
      const bad = query.statuses.find((s) => s !== 'processing' && s !== 'ready' && s !== 'failed');
      if (bad !== undefined) throw errors.invalid('status', 'Use processing, ready or failed.');
      return store.list(orgId, { ...query, ...(from ? { from } : {}) });
    },
  };
}

export type EmbedTasks = ReturnType<typeof createEmbedTasks>;

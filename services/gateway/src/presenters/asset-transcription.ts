import type { IndexedAsset } from '@vus/grpc/types/task/v1/IndexedAsset';
import type { TranscriptionSegmentation } from '../routes/assets.schema';

/**
 * GET /assets/{id}/transcription (issue 32 §3). This server transcribes a video when it is indexed
 * (the speech model's segments, kept with the indexed video), so an asset's transcription is the
 * one of a video indexed from it. The status follows the indexed assets: the newest ready one gives
 * the text; otherwise one being indexed is `processing`, one waiting `pending`, and only failures
 * `failed`. Speech comes as the model's segments, each a sentence-like chunk with its times: the
 * answer carries `sentences`; `words` (no word times are kept) and `utterances` (no speakers are
 * told apart) are left out, as the reference allows ("a transcription does not always support every
 * segmentation").
 */
export type TranscriptionSource =
  | { status: 'ready'; indexedAsset: IndexedAsset }
  | { status: 'pending' | 'processing' }
  | { status: 'failed'; message: string }
  | { status: 'none' };

/** Which indexed asset answers, and the status when none is ready. Pure; `indexed` newest first. */
export function transcriptionSource(indexed: readonly IndexedAsset[]): TranscriptionSource {
  const ready = indexed.find((item) => item.status === 'ready');
  if (ready) return { status: 'ready', indexedAsset: ready };
  if (indexed.some((item) => item.status === 'indexing')) return { status: 'processing' };
  if (indexed.some((item) => item.status === 'pending' || item.status === 'queued')) return { status: 'pending' };
  const failed = indexed.find((item) => item.status === 'failed');
  if (failed) return { status: 'failed', message: failed.failure?.message || 'Indexing the asset failed, so it was not transcribed.' };
  return { status: 'none' };
}

interface Segment {
  start: number;
  end: number;
  value: string;
}

/** The answer of a ready transcription: `sentences` when asked for; nothing else is kept. Pure. */
export function presentTranscription(segments: readonly Segment[], include: readonly TranscriptionSegmentation[]): Record<string, unknown> {
  return {
    status: 'ready',
    ...(include.includes('sentences')
      ? { sentences: segments.filter((s) => s.value.trim() !== '').map((s) => ({ start: s.start, end: s.end, value: s.value.trim() })) }
      : {}),
  };
}

import { extractAudio, extractSubtitles, isMediaError, type MediaProbe, type SubtitleTrackCues } from '@vus/media';
import { parseTranscript, type SpeechRecognizer } from '@vus/models';
import { join } from 'node:path';
import type { TimedValue } from './timeline';

/** Where the words come from, in order of preference. */
export type ConversationSource = 'transcription_file' | 'subtitles' | 'whisper';

export interface ConversationResult {
  transcription: TimedValue[];
  /** The extractor that produced the transcription; undefined when none could. */
  ran: ConversationSource | undefined;
  /** Why speech recognition did not run, when it did not and nothing else gave words. */
  skipped?: { extractor: 'whisper'; reason: string } | undefined;
}

export interface ConversationInput {
  file: string;
  probe: MediaProbe;
  /** ISO 639-1 language of the video, if the user said. */
  language: string | null;
  /** The user's transcription file (SRT/VTT/plain text), if any. */
  readTranscription: (() => Promise<string>) | undefined;
  recognizer: SpeechRecognizer | undefined;
  /** Why no recognizer is there (the registry's reason). */
  recognizerMissing: string;
  workDir: string;
  signal?: AbortSignal | undefined;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The embedded track to use: the one in the user's language if there is one, else the first. */
export function chooseTrack(tracks: readonly SubtitleTrackCues[], language: string | null): SubtitleTrackCues | undefined {
  const withCues = tracks.filter((t) => t.cues.length > 0);
  const lang = language?.toLowerCase().slice(0, 2);
  return (lang && withCues.find((t) => t.track.language?.toLowerCase().startsWith(lang))) || withCues[0];
}

/**
 * Conversation: the user's transcription file wins; then an embedded text subtitle track; then
 * Whisper on the audio when the model is installed. Otherwise there is no transcription and the
 * result says why Whisper was skipped.
 */
export async function extractConversation(input: ConversationInput): Promise<ConversationResult> {
  if (input.readTranscription) {
    const cues = parseTranscript(await input.readTranscription(), { duration: input.probe.durationSec, param: 'transcription_file' });
    return { transcription: cues.map((c) => ({ start: round2(c.start), end: round2(c.end), value: c.text, confidence: 1 })), ran: 'transcription_file' };
  }
  if (input.probe.subtitles.some((t) => t.isText)) {
    const track = chooseTrack(await extractSubtitles(input.file, { probe: input.probe, signal: input.signal }), input.language);
    if (track) {
      return {
        transcription: track.cues.map((c) => ({ start: round2(c.startSec), end: round2(c.endSec), value: c.text, confidence: 1 })),
        ran: 'subtitles',
      };
    }
  }
  if (!input.recognizer) return { transcription: [], ran: undefined, skipped: { extractor: 'whisper', reason: input.recognizerMissing } };
  if (!input.probe.hasAudio) return { transcription: [], ran: undefined, skipped: { extractor: 'whisper', reason: 'the video has no audio track' } };
  try {
    const audio = await extractAudio(input.file, join(input.workDir, 'speech.wav'), { signal: input.signal, probe: input.probe });
    const segments = await input.recognizer.transcribe(audio.path, input.language ? { language: input.language } : {});
    return {
      transcription: segments
        .filter((s) => s.text.trim() !== '')
        .map((s) => ({ start: round2(s.start), end: round2(Math.max(s.start, s.end)), value: s.text.trim(), confidence: 0 })),
      ran: 'whisper',
    };
  } catch (error) {
    if (isMediaError(error) && error.failure === 'no_audio') {
      return { transcription: [], ran: undefined, skipped: { extractor: 'whisper', reason: 'the video has no audio track' } };
    }
    throw error;
  }
}

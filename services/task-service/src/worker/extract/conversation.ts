import { extractAudio, extractSubtitles, isMediaError, type MediaProbe, type SubtitleTrackCues } from '@vus/media';
import { parseTranscript, type SpeechRecognizer } from '@vus/models';
import { join } from 'node:path';
import type { TimedValue } from './timeline';

/** Where the words come from, in order of preference; speech recognition is named by its provider (`whisper`, `pocketsphinx`). */
export type ConversationSource = 'transcription_file' | 'subtitles' | (string & {});

export interface ConversationResult {
  transcription: TimedValue[];
  /** The extractor that produced the transcription; undefined when none could. */
  ran: ConversationSource | undefined;
  /** Why speech recognition did not run, when it did not and nothing else gave words. */
  skipped?: { extractor: 'speech'; reason: string } | undefined;
  /** The language of the speech, where the recogniser reports it (ISO 639-1). */
  language?: string | undefined;
}

export interface ConversationInput {
  file: string;
  probe: MediaProbe;
  /** ISO 639-1 language of the video, if the user said. */
  language: string | null;
  /** The user's transcription file (SRT/VTT/plain text), if any. */
  readTranscription: (() => Promise<string>) | undefined;
  recognizer: { name: string; instance: SpeechRecognizer } | undefined;
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
 * speech recognition on the audio (Whisper from MODELS_DIR, else the bundled PocketSphinx) when
 * one is installed and knows the video's language. Otherwise there is no transcription and the
 * result says why speech was skipped.
 */
export async function extractConversation(input: ConversationInput): Promise<ConversationResult> {
  if (input.readTranscription) {
    const cues = parseTranscript(await input.readTranscription(), { duration: input.probe.durationSec, param: 'transcription_file' });
    return {
      transcription: cues.map((c) => ({ start: round2(c.start), end: round2(c.end), value: c.text, confidence: 1 })),
      ran: 'transcription_file',
    };
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
  const skipped = (reason: string): ConversationResult => ({ transcription: [], ran: undefined, skipped: { extractor: 'speech', reason } });
  if (!input.recognizer) return skipped(input.recognizerMissing);
  if (!input.probe.hasAudio) return skipped('the video has no audio track');
  const { name, instance } = input.recognizer;
  const language = input.language?.toLowerCase().slice(0, 2);
  if (language && instance.languages && !instance.languages.includes(language)) {
    return skipped(`the speech recogniser (${name}) knows ${instance.languages.join(', ')} only; the video's language is ${language}`);
  }
  try {
    const audio = await extractAudio(input.file, join(input.workDir, 'speech.wav'), { signal: input.signal, probe: input.probe });
    const segments = await instance.transcribe(audio.path, { ...(language ? { language } : {}), signal: input.signal });
    return {
      transcription: segments
        .filter((s) => s.text.trim() !== '')
        .map((s) => ({ start: round2(s.start), end: round2(Math.max(s.start, s.end)), value: s.text.trim(), confidence: 0 })),
      ran: name,
      language: segments.find((s) => s.language)?.language ?? language,
    };
  } catch (error) {
    if (isMediaError(error) && error.failure === 'no_audio') return skipped('the video has no audio track');
    throw error;
  }
}

import type { MediaProbe } from '@vus/media';
import { POCKETSPHINX_DEFAULTS, PocketSphinxRecognizer } from '@vus/models';
import { extractConversation, type ConversationInput } from '../src/worker/extract/conversation';

/** A video with an audio track and no subtitles (the extractor reads only these fields before recognising). */
const probe = { hasAudio: true, subtitles: [], durationSec: 10 } as unknown as MediaProbe;

function input(language: string | null): ConversationInput {
  return {
    file: '/nonexistent/video.mp4',
    probe,
    language,
    readTranscription: undefined,
    // Never started here: the language is refused before any audio is read.
    recognizer: {
      name: 'pocketsphinx',
      instance: new PocketSphinxRecognizer({ ...POCKETSPHINX_DEFAULTS, binary: '/nonexistent/recogniser' }),
    },
    recognizerMissing: '',
    workDir: '/nonexistent',
  };
}

describe('extractConversation and the recogniser’s languages', () => {
  it.each(['fr', 'FR', 'de-DE'])('skips speech in %s with an English-only recogniser, saying why', async (language) => {
    const code = language.toLowerCase().slice(0, 2);
    expect(await extractConversation(input(language))).toEqual({
      transcription: [],
      ran: undefined,
      skipped: { extractor: 'speech', reason: `the speech recogniser (pocketsphinx) knows en only; the video's language is ${code}` },
    });
  });

  it('says why when no recogniser is installed', async () => {
    expect(await extractConversation({ ...input(null), recognizer: undefined, recognizerMissing: 'pocketsphinx: not installed' })).toEqual({
      transcription: [],
      ran: undefined,
      skipped: { extractor: 'speech', reason: 'pocketsphinx: not installed' },
    });
  });

  it('says why when the video has no audio', async () => {
    expect(await extractConversation({ ...input('en'), probe: { ...probe, hasAudio: false } })).toMatchObject({
      skipped: { extractor: 'speech', reason: 'the video has no audio track' },
    });
  });
});

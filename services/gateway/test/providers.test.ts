import type { ModelProvider } from '@vus/grpc/types/embed/v1/ModelProvider';
import { presentProviders } from '../src/presenters/providers';

const provider = (name: string, source: string, error = ''): ModelProvider => ({
  capability: 'speech_recognizer',
  name,
  source,
  loaded: error === '',
  error,
  model_names: [],
});
const whisper = provider('whisper', 'downloadable');
const noWhisper = provider('whisper', 'downloadable', 'Whisper model Xenova/whisper-tiny is not in MODELS_DIR');
const pocketsphinx = provider('pocketsphinx', 'bundled');
const noPocketsphinx = provider('pocketsphinx', 'bundled', 'the speech recogniser is not installed');
const ocr: ModelProvider = { ...provider('paddleocr-v4', 'bundled'), capability: 'text_reader' };

describe('presentProviders: which speech recogniser the engines listing names', () => {
  it.each([
    ['Whisper, when both can load (it comes first)', [ocr, whisper, pocketsphinx], { provider: 'whisper', source: 'downloadable' }],
    ['PocketSphinx, when Whisper is not in MODELS_DIR', [ocr, noWhisper, pocketsphinx], { provider: 'pocketsphinx', source: 'bundled' }],
    ['Whisper alone', [whisper, noPocketsphinx], { provider: 'whisper', source: 'downloadable' }],
    [
      'none, with each recogniser’s reason',
      [ocr, noWhisper, noPocketsphinx],
      {
        provider: 'none',
        reason:
          'videos without subtitles or a transcription file are indexed without speech (whisper: Whisper model Xenova/whisper-tiny is not in MODELS_DIR; pocketsphinx: the speech recogniser is not installed)',
      },
    ],
    [
      'none, when no recogniser is registered',
      [ocr],
      { provider: 'none', reason: 'videos without subtitles or a transcription file are indexed without speech' },
    ],
  ])('%s', (_name, providers, speech) => {
    expect(presentProviders(providers)).toEqual({ speech });
  });
});

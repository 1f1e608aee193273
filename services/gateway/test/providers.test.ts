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
    expect(presentProviders(providers).speech).toEqual(speech);
  });
});

describe('presentProviders: which provider embeds each embedding model name', () => {
  const concept: ModelProvider = {
    capability: 'embeddings',
    name: 'concept-embedding',
    source: 'bundled',
    loaded: true,
    error: '',
    model_names: ['Marengo-retrieval-2.7', 'marengo3.0'],
  };
  const clip: ModelProvider = { ...provider('clip', 'downloadable'), capability: 'visual_embedder', model_names: ['clip'] };
  const noClap: ModelProvider = {
    ...provider('clap', 'downloadable', 'CLAP model Xenova/clap-htsat-unfused is not in MODELS_DIR'),
    capability: 'audio_embedder',
    model_names: ['clap'],
  };

  it('names the provider of each model name, and why one cannot load', () => {
    expect(presentProviders([concept, ocr, clip, noClap, whisper]).embeddings).toEqual({
      'Marengo-retrieval-2.7': { provider: 'concept-embedding', source: 'bundled', available: true },
      'marengo3.0': { provider: 'concept-embedding', source: 'bundled', available: true },
      clip: { provider: 'clip', source: 'downloadable', available: true },
      clap: {
        provider: 'clap',
        source: 'downloadable',
        available: false,
        reason: 'CLAP model Xenova/clap-htsat-unfused is not in MODELS_DIR',
      },
    });
  });

  it('gives a name to the first provider that serves it (the registry’s order)', () => {
    const other: ModelProvider = { ...clip, name: 'other-clip' };
    expect(presentProviders([clip, other]).embeddings).toEqual({ clip: { provider: 'clip', source: 'downloadable', available: true } });
  });

  it('is empty when no provider serves a model name', () => {
    expect(presentProviders([ocr, whisper]).embeddings).toEqual({});
  });
});

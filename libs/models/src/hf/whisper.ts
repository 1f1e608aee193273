import type { AutomaticSpeechRecognitionPipeline } from '@huggingface/transformers' with { 'resolution-mode': 'require' };
import { readWav, SPEECH_SAMPLE_RATE } from '../audio';
import type { ModelsConfig } from '../config';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { Disposable, SpeechRecognizer, SpeechSegment, TranscribeOptions } from '../types';
import { missingModelReason, transformers } from './transformers';

/**
 * Whisper through transformers.js' speech-recognition pipeline: 16 kHz mono audio in, segments
 * with start/end times out. Audio longer than 30 s is cut into overlapping 30 s windows.
 * Loads `<MODELS_DIR>/<MODELS_WHISPER>/` (default `Xenova/whisper-tiny`).
 */

/** The files it loads (transformers.js layout), what `npm run models -- pull` fetches. */
export const WHISPER_FILES: readonly string[] = [
  'config.json',
  'generation_config.json',
  'preprocessor_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/encoder_model.onnx',
  'onnx/decoder_model_merged.onnx',
];

const WINDOW_SECONDS = 30;

export function whisperProvider(config: ModelsConfig): ProviderDefinition<'speech_recognizer'> {
  return {
    capability: 'speech_recognizer',
    name: 'whisper',
    model: config.whisperModel,
    kind: 'downloadable',
    check: () => missingModelReason(config, 'Whisper', config.whisperModel, WHISPER_FILES),
    load: () => WhisperRecognizer.load(config),
  };
}

interface AsrChunk {
  timestamp: [number, number | null];
  text: string;
}

export class WhisperRecognizer implements SpeechRecognizer, Disposable {
  private readonly queue = new SerialQueue();
  /** An English-only checkpoint (`*.en`, tiny) recognises English alone; a multilingual one, any. */
  readonly languages?: readonly string[];

  private constructor(
    private readonly asr: AutomaticSpeechRecognitionPipeline,
    private readonly multilingual: boolean,
  ) {
    if (!multilingual) this.languages = ['en'];
  }

  static async load(config: ModelsConfig): Promise<WhisperRecognizer> {
    const lib = await transformers(config);
    const asr = await lib.pipeline('automatic-speech-recognition', config.whisperModel, { dtype: 'fp32', device: 'cpu' });
    const generation = (asr.model as { generation_config?: { is_multilingual?: unknown } }).generation_config;
    return new WhisperRecognizer(asr, generation?.is_multilingual === true);
  }

  transcribe(audio: Float32Array | string, options: TranscribeOptions = {}): Promise<SpeechSegment[]> {
    return this.queue.run(async () => {
      const samples = typeof audio === 'string' ? await readWav(audio) : audio;
      if (samples.length === 0) return [];
      const duration = samples.length / SPEECH_SAMPLE_RATE;
      // English-only checkpoints speak English; a multilingual one speaks what it was told, and
      // English when told nothing (transformers.js does not detect the language: it decodes as en).
      const language = this.multilingual ? (options.language ?? 'en') : 'en';
      const output = await this.asr(samples, {
        return_timestamps: true,
        // English-only checkpoints refuse a language; multilingual ones default to English without one.
        ...(this.multilingual && options.language ? { language: options.language, task: 'transcribe' } : {}),
        ...(duration > WINDOW_SECONDS ? { chunk_length_s: WINDOW_SECONDS, stride_length_s: 5 } : {}),
      });
      const chunks = ((Array.isArray(output) ? output[0] : output) as { chunks?: AsrChunk[] }).chunks ?? [];
      return chunks.flatMap(({ timestamp: [start, end], text }) => {
        const trimmed = text.trim();
        if (trimmed === '') return [];
        // The last chunk of a window may lack its end time: it runs to the end of the audio.
        return [{ start, end: Math.min(duration, end ?? duration), text: trimmed, ...(language ? { language } : {}) }];
      });
    });
  }

  async dispose(): Promise<void> {
    await this.asr.dispose();
  }
}

import type { ModelsConfig } from './config';
import { clapProvider } from './hf/clap';
import { clipProvider } from './hf/clip';
import { whisperProvider } from './hf/whisper';
import { paddleOcrProvider } from './ocr/paddle-ocr';
import { ModelRegistry } from './registry';
import { pocketSphinxProvider } from './speech/pocketsphinx';
import { blazeFaceProvider } from './vision/blazeface';
import { cocoDetectorProvider } from './vision/coco-detector';

/**
 * The registry every service uses: the bundled providers (PaddleOCR, COCO detector, BlazeFace,
 * PocketSphinx where its OS package is installed) and the downloadable ones (CLIP, CLAP, Whisper) from
 * MODELS_DIR. Nothing loads until first use. Whisper comes before PocketSphinx: the first of a
 * capability that loads wins, and Whisper recognises far more words.
 */
export function createModelRegistry(config: ModelsConfig): ModelRegistry {
  return new ModelRegistry([
    paddleOcrProvider(),
    cocoDetectorProvider(),
    blazeFaceProvider(),
    clipProvider(config),
    clapProvider(config),
    whisperProvider(config),
    pocketSphinxProvider(config.pocketsphinx),
  ]);
}

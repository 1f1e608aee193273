import type { ModelsConfig } from './config';
import { clapProvider } from './hf/clap';
import { clipProvider } from './hf/clip';
import { whisperProvider } from './hf/whisper';
import { paddleOcrProvider } from './ocr/paddle-ocr';
import { ModelRegistry } from './registry';
import { pocketSphinxProvider } from './speech/pocketsphinx';
import { blazeFaceProvider } from './vision/blazeface';
import { cocoDetectorProvider } from './vision/coco-detector';
import { faceRecognitionProvider } from './vision/face-recognition';

/**
 * The registry every service uses: the bundled providers (PaddleOCR, COCO detector, BlazeFace,
 * face-api's face recogniser, PocketSphinx where its OS package is installed) and the downloadable ones (CLIP, CLAP, Whisper) from
 * MODELS_DIR. Nothing loads until first use. Whisper comes before PocketSphinx: the first of a
 * capability that loads wins, and Whisper recognises far more words.
 */
export function createModelRegistry(config: ModelsConfig): ModelRegistry {
  return new ModelRegistry([
    paddleOcrProvider(),
    cocoDetectorProvider(),
    blazeFaceProvider(),
    faceRecognitionProvider(),
    clipProvider(config),
    clapProvider(config),
    whisperProvider(config),
    pocketSphinxProvider(config.pocketsphinx),
  ]);
}

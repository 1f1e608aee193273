import type { ModelsConfig } from './config';
import { clipProvider } from './hf/clip';
import { whisperProvider } from './hf/whisper';
import { paddleOcrProvider } from './ocr/paddle-ocr';
import { ModelRegistry } from './registry';
import { blazeFaceProvider } from './vision/blazeface';
import { cocoDetectorProvider } from './vision/coco-detector';

/**
 * The registry every service uses: the bundled providers (PaddleOCR, COCO detector, BlazeFace)
 * and the downloadable ones (CLIP, Whisper) from MODELS_DIR. Nothing loads until first use.
 */
export function createModelRegistry(config: ModelsConfig): ModelRegistry {
  return new ModelRegistry([
    paddleOcrProvider(),
    cocoDetectorProvider(),
    blazeFaceProvider(),
    clipProvider(config),
    whisperProvider(config),
  ]);
}

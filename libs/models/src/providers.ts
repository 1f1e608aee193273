import { VISION_THREADS_DEFAULT, type ModelsConfig } from './config';
import { clapProvider } from './hf/clap';
import { clipProvider } from './hf/clip';
import { whisperProvider } from './hf/whisper';
import { ModelRegistry } from './registry';
import { pocketSphinxProvider } from './speech/pocketsphinx';
import { visionProviders } from './vision/thread/threaded-providers';

/**
 * The registry every service uses: the bundled providers (PaddleOCR, COCO detector, BlazeFace,
 * face-api's face recogniser, PocketSphinx where its OS package is installed) and the downloadable ones (CLIP, CLAP, Whisper) from
 * MODELS_DIR. Nothing loads until first use. The frame models (PaddleOCR and the TF.js ones) run in worker threads (config.visionThreads). Whisper comes before PocketSphinx: the first of a
 * capability that loads wins, and Whisper recognises far more words.
 */
export function createModelRegistry(config: ModelsConfig): ModelRegistry {
  return new ModelRegistry([
    ...visionProviders(config.visionThreads ?? VISION_THREADS_DEFAULT),
    clipProvider(config),
    clapProvider(config),
    whisperProvider(config),
    pocketSphinxProvider(config.pocketsphinx),
  ]);
}

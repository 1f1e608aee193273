/**
 * @vus/models — the models behind indexing and search, one small interface per capability.
 *
 * ```ts
 * const registry = createModelRegistry(loadModelsConfig(process.env));
 * const reader = await registry.get('text_reader');          // throws model_unavailable if absent
 * const lines = await reader.readText(jpegBuffer);
 * const clip = await registry.find('visual_embedder');        // undefined when absent: skip the extractor
 * console.log(await registry.probe());                        // for /health and the engines listing
 * ```
 */
export * from './types';
export * from './config';
export * from './registry';
export * from './providers';
export * from './transcripts';
export * from './ocr/paddle-ocr';
export * from './vision/coco-detector';
export * from './vision/blazeface';
export * from './vision/face-recognition';
export * from './vision/face-match';
export { iou } from './vision/boxes';
export { COCO_LABELS } from './vision/coco-labels';
export { CLEAR_DETECTION_SCORE, tentativeLabels } from './vision/label-scores';
export { sceneDescriptor, sceneDescriptorOf, SCENE_DESCRIPTOR_DIMENSIONS, SCENE_THUMBNAIL_SIDE } from './vision/scene-descriptor';
export * from './hf/clip';
export * from './hf/clap';
export { l2Normalise } from './hf/transformers';
export * from './hf/whisper';
export * from './hf/catalog';
export * from './hf/pull';
export * from './speech/pocketsphinx';
export * from './speech/vad';
export * from './speech/words';
export * from './speech/report';
export * from './models-report';
export { decodeWav, memorySamples, openWavSamples, readWav, SPEECH_SAMPLE_RATE, type SampleSource } from './audio';
export { describeImage, type ImageFacts } from './image';
export * from './concept/concepts';
export * from './concept/space';
export * from './concept/word-vectors';
export * from './concept/embedder';

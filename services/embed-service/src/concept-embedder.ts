import { ConceptEmbedder, openWordVectors, type ModelRegistry } from '@vus/models';
import { openWordNet } from '@vus/wordnet';

/**
 * The concept embedder on WordNet and the word vectors, over the registry's extractors, which load
 * on first use (not at boot): a process that never embeds an image never loads the detector.
 */
export function openConceptEmbedder(models: ModelRegistry): { embedder: ConceptEmbedder; close: () => void } {
  const wordnet = openWordNet();
  const vectors = openWordVectors();
  const embedder = new ConceptEmbedder(wordnet, vectors, {
    detector: { detectObjects: async (image) => (await models.find('object_detector'))?.detectObjects(image) ?? [] },
    textReader: { readText: async (image) => (await models.find('text_reader'))?.readText(image) ?? [] },
    speech: { transcribe: async (audio, options) => (await models.find('speech_recognizer'))?.transcribe(audio, options) ?? [] },
    hasSpeech: async () => (await models.find('speech_recognizer')) !== undefined,
  });
  return { embedder, close: () => (wordnet.close(), vectors.close()) };
}

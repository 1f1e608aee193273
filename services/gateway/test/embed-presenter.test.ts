import type { EmbedTask } from '@vus/grpc/types/embed/v1/EmbedTask';
import { optionNamesOf, presentEmbedTask } from '../src/presenters/embed';

const v13 = { modelField: 'model_name', textFloat: false, embedV2: true } as const;

function task(modelName: string): EmbedTask {
  const segment = (option: string) => ({ vector: [0.5], start: 0, end: 6, embedding_scope: 'clip', embedding_option: option });
  return {
    id: 'task',
    model_name: modelName,
    status: 'ready',
    embedding: { segments: ['visual', 'audio', 'transcription'].map(segment) },
  } as unknown as EmbedTask;
}

describe('an embed task’s option names: one vocabulary per model', () => {
  it.each([
    ['marengo3.0', ['visual', 'audio', 'transcription']],
    ['Marengo 3.0', ['visual', 'audio', 'transcription']],
    ['Marengo-retrieval-2.7', ['visual-text', 'audio', 'transcription']],
    ['Marengo-retrieval-2.6', ['visual-text', 'audio', 'transcription']],
  ])('%s names its clips %j', (model, names) => {
    const out = presentEmbedTask(task(model), v13) as { video_embedding: { segments: { embedding_option: string }[] } };
    expect(out.video_embedding.segments.map((s) => s.embedding_option)).toEqual(names);
  });

  it.each([
    ['marengo3.0', 'visual', 'visual'],
    ['Marengo-retrieval-2.7', 'visual', 'visual-text'],
    ['Marengo-retrieval-2.7', 'audio', 'audio'],
  ])('%s: %s is %s', (model, option, name) => expect(optionNamesOf(model)(option)).toBe(name));
});

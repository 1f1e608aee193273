/* Which model answers a query's vectors, and the query image fetched from its URL (issue 29: moved out of server.ts). */
import { codeOf } from '@vus/testing';
import type { QueryInput, VectorModel } from '../src/model-server';
import { createQueryEmbedding, type QueryRequestInput } from '../src/query-vectors';

/** Each answer names who answered and what it was given. */
function fakes() {
  const calls: string[] = [];
  const named = (inputs: readonly QueryInput[]) =>
    inputs
      .map((i) => ('text' in i ? `text:${i.text}` : 'image' in i ? `image:${i.image.toString()}` : `audio:${i.audio.toString()}`))
      .join(',');
  const queries = createQueryEmbedding({
    embed: {
      embedQuery: async (modelName, inputs) => (
        calls.push(`concept ${modelName} ${named(inputs)}`),
        { modelName: 'Marengo-retrieval-2.7', vectors: inputs.map(() => new Float32Array(2)) }
      ),
    },
    modelServer: {
      embed: async (model: VectorModel, inputs) => (
        calls.push(`${model.name} ${named(inputs)}`),
        { available: true, modelName: model.name, dimensions: 512, vectors: [] }
      ),
      embedVisual: async (inputs) => (calls.push(`visual ${named(inputs)}`), { available: false, modelName: 'clip', reason: 'not loaded' }),
    },
    fetchMedia: async (url, param) => (calls.push(`fetch ${url} ${param}`), Buffer.from('png')),
  });
  return { calls, queries };
}

describe('createQueryEmbedding', () => {
  const text: QueryRequestInput = { kind: 'text', text: 'dog' };
  it.each<[string, string, QueryRequestInput[], string[], Record<string, unknown>]>([
    [
      'an API model name: the concept embedding, no dimensions',
      'Marengo-retrieval-2.7',
      [text],
      ['concept Marengo-retrieval-2.7 text:dog'],
      { available: true, modelName: 'Marengo-retrieval-2.7' },
    ],
    ['a vector model by name, any case', ' CLIP ', [text], ['clip text:dog'], { available: true, modelName: 'clip', dimensions: 512 }],
    [
      'no name: the visual model, unavailable here',
      '',
      [text],
      ['visual text:dog'],
      { available: false, modelName: 'clip', reason: 'not loaded' },
    ],
    [
      'an image URL, fetched first as query_media_url',
      'scene',
      [{ kind: 'image_url', imageUrl: 'https://x/q.png' }],
      ['fetch https://x/q.png query_media_url', 'scene image:png'],
      { available: true, modelName: 'scene' },
    ],
    [
      'inline image and audio',
      'clap',
      [
        { kind: 'image', image: Buffer.from('i') },
        { kind: 'audio', audio: Buffer.from('a') },
      ],
      ['clap image:i,audio:a'],
      { available: true, modelName: 'clap' },
    ],
  ])('%s', async (_name, modelName, inputs, calls, answer) => {
    const fake = fakes();
    expect(await fake.queries.embedQuery(modelName, inputs)).toMatchObject(answer);
    expect(fake.calls).toEqual(calls);
  });

  it('answers no dimensions from the concept embedding', async () => {
    expect(await fakes().queries.embedQuery('marengo3.0', [text])).not.toHaveProperty('dimensions');
  });

  it.each<[string, string, QueryRequestInput[], string]>([
    ['audio with an API model name', 'marengo3.0', [text, { kind: 'audio', audio: Buffer.from('a') }], 'parameter_invalid'],
    ['an input of no kind', 'clip', [{ kind: '' }], 'parameter_not_provided'],
  ])('refuses %s', async (_name, modelName, inputs, code) => {
    const fake = fakes();
    expect(await codeOf(fake.queries.embedQuery(modelName, inputs))).toBe(code);
    expect(fake.calls).toEqual([]);
  });
});

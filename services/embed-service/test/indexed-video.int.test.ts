import { ConceptEmbedder, cosine, openWordVectors } from '@vus/models';
import { openWordNet } from '@vus/wordnet';
import { createIndexedVideoEmbedding, type IndexedSegment } from '../src/indexed-video';

// Real WordNet and word vectors (files read from node_modules), so an integration test.
describe('an indexed video embedding', () => {
  const wordnet = openWordNet();
  const vectors = openWordVectors();
  const embedder = new ConceptEmbedder(wordnet, vectors);
  const indexed = createIndexedVideoEmbedding(embedder);
  afterAll(() => (wordnet.close(), vectors.close()));

  const segments: IndexedSegment[] = [
    { start: 0, end: 1, modality: 'visual', text: '', labels: ['cat'] },
    { start: 1, end: 2, modality: 'visual', text: '', labels: ['cat', 'couch'] },
    { start: 6, end: 7, modality: 'visual', text: '', labels: ['motorcycle'] },
    { start: 7, end: 9, modality: 'text_in_video', text: 'RACE DAY', labels: [] },
    { start: 2, end: 5, modality: 'conversation', text: 'the sardines are packed in olive oil', labels: [] },
    { start: 8, end: 11, modality: 'conversation', text: 'the rocket launched into space', labels: [] },
  ];
  const text = (t: string) => embedder.embed(embedder.textConcepts(t), 1024);

  it('gives one clip per clip length and option, in the index model’s size, at unit length', () => {
    const result = indexed.embed({ modelName: 'Marengo-retrieval-2.7', options: [], duration: 12, segments });
    expect(result.options.map((o) => o.option)).toEqual(['visual-text', 'audio']);
    for (const { embedding } of result.options) {
      expect(embedding.segments.map((s) => [s.start, s.end, s.scope])).toEqual([
        [0, 6, 'clip'],
        [6, 12, 'clip'],
      ]);
      for (const s of embedding.segments) {
        expect(s.vector).toHaveLength(1024);
        expect(Math.hypot(...s.vector)).toBeCloseTo(1, 4);
      }
    }
    expect(
      indexed.embed({ modelName: 'marengo3.0', options: ['audio'], duration: 12, segments }).options[0]?.embedding.segments[0]?.vector,
    ).toHaveLength(512);
  });

  it('places each clip near the words for what it shows and says', () => {
    const [visual, audio] = indexed.embed({ modelName: '', options: ['visual-text', 'audio'], duration: 12, segments }).options;
    const [catClip, bikeClip] = visual!.embedding.segments;
    expect(cosine(text('cat'), catClip!.vector)).toBeGreaterThan(cosine(text('cat'), bikeClip!.vector));
    expect(cosine(text('motorbike'), bikeClip!.vector)).toBeGreaterThan(cosine(text('motorbike'), catClip!.vector));
    const [fishClip, spaceClip] = audio!.embedding.segments;
    expect(cosine(text('fish'), fishClip!.vector)).toBeGreaterThan(cosine(text('fish'), spaceClip!.vector));
    expect(cosine(text('space'), spaceClip!.vector)).toBeGreaterThan(cosine(text('space'), fishClip!.vector));
  });

  it('takes Marengo 3.0’s names as the SDKs send them (visual, audio, transcription) and labels each clip with the name asked', () => {
    const options = ['visual', 'audio', 'transcription'];
    const marengo3 = indexed.embed({ modelName: 'marengo3.0', options, duration: 12, segments }).options;
    expect(marengo3.map((o) => o.option)).toEqual(options);
    const legacy = indexed.embed({ modelName: 'marengo3.0', options: ['visual-text', 'audio'], duration: 12, segments }).options;
    const vectors = (o: (typeof marengo3)[number] | undefined) => o?.embedding.segments.map((s) => s.vector);
    expect(vectors(marengo3[0])).toEqual(vectors(legacy[0]));
    // The spoken words are what both audio and transcription embed here.
    expect(vectors(marengo3[2])).toEqual(vectors(marengo3[1]));
  });

  it.each([
    [{ options: ['speech'] }, 'embedding_option'],
    [{ options: ['visual', 'constructor'] }, 'embedding_option'],
    [{ clipLength: 1 }, 'video_clip_length'],
    [{ clipLength: 11 }, 'video_clip_length'],
    [{ modelName: 'pegasus1.2' }, 'model_name'],
  ])('refuses %j on %s', (change, param) => {
    expect(() => indexed.embed({ modelName: '', options: [], duration: 12, segments, ...change })).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', details: expect.objectContaining({ param }) }),
    );
  });
});

import { ApiError } from '@vus/core';
import { VideoClipVectors, type ClipVectorClient } from '../src/worker/extract/clip-vectors';

const context = () => ({ orgId: '0123456789abcdef01234567' });

/** An embed-service stand-in answering each call with the next of `answers` (an Error is thrown). */
function client(...answers: unknown[]): ClipVectorClient & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    embedQuery: async (_ctx, request) => {
      calls.push(request);
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return answer as Awaited<ReturnType<ClipVectorClient['embedQuery']>>;
    },
  };
}

const frame = Buffer.from('jpeg');

describe('VideoClipVectors (the worker asks embed-service for clip vectors)', () => {
  it('asks once whether the visual model is there, then embeds each clip’s frame under that model', async () => {
    const service = client(
      { available: true, model_name: 'clip', dimensions: 2, vectors: [], reason: '' },
      { available: true, model_name: 'clip', dimensions: 2, vectors: [{ values: [0.6, 0.8] }], reason: '' },
    );
    const clip = await VideoClipVectors.open(service, context);
    expect(clip).toBeInstanceOf(VideoClipVectors);
    const vectors = clip as VideoClipVectors;
    expect(vectors.model).toBe('clip');
    expect(await vectors.embedImage(frame)).toEqual(Float32Array.from([0.6, 0.8]));
    expect(service.calls).toEqual([
      { model_name: '', inputs: [] },
      { model_name: 'clip', inputs: [{ image: frame }] },
    ]);
    expect(vectors.failure).toBeUndefined();
  });

  it.each([
    ['no embed-service', undefined, /^no embed-service is configured \(EMBED_SERVICE_ADDR\)$/],
    [
      'no visual model there',
      client({ available: false, model_name: 'clip', vectors: [], reason: 'clip: CLIP model x is not in MODELS_DIR' }),
      /^clip: CLIP model x is not in MODELS_DIR$/,
    ],
    ['embed-service down', client(new ApiError('service_unavailable', 'embed-service is unavailable')), /^embed-service did not answer: /],
  ])('is skipped with the reason when there is %s', async (_name, service, reason) => {
    const clip = await VideoClipVectors.open(service, context);
    expect(clip).toEqual({ skipped: expect.stringMatching(reason) });
  });

  it('stops at the first failure during the video, and says why (the pipeline then drops the video’s vectors)', async () => {
    const service = client(
      { available: true, model_name: 'clip', dimensions: 2, vectors: [], reason: '' },
      new ApiError('deadline_exceeded', 'The deadline passed'),
    );
    const clip = (await VideoClipVectors.open(service, context)) as VideoClipVectors;
    expect(await clip.embedImage(frame)).toBeUndefined();
    expect(clip.failure).toMatch(/^embed-service failed while embedding the clips: The deadline passed/);
    // No more calls for the rest of the video.
    expect(await clip.embedImage(frame)).toBeUndefined();
    expect(service.calls).toHaveLength(2);
  });
});

import type { EmbedClient } from '@vus/clients';
import { ApiError, createLogger } from '@vus/core';
import { queryModels } from '../src/query-models';

/** A logger whose warnings are kept. */
function recordingLogger() {
  const warnings: string[] = [];
  const logger = createLogger({ service: 'test', level: 'silent' });
  logger.warn = (...args: unknown[]) => warnings.push(String(args.find((a) => typeof a === 'string')));
  return { logger, warnings };
}

/** An embed client whose two query calls answer `answer` (or throw it). */
function client(answer: unknown): EmbedClient {
  const call = async () => {
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { embedQuery: call, detectImageLabels: call } as unknown as EmbedClient;
}

const orgId = '0123456789abcdef01234567';

describe('queryModels (search-service asks embed-service)', () => {
  it('gives the vector and the model it was made with', async () => {
    const { logger } = recordingLogger();
    const models = queryModels(client({ available: true, model_name: 'clip', vectors: [{ values: [0.6, 0.8] }] }), logger);
    expect(await models.embed(orgId, { text: 'a red car' })).toEqual({ model: 'clip', vector: Float32Array.from([0.6, 0.8]) });
  });

  it('has no vector when the visual model is not loaded there (lexical search, nothing to log)', async () => {
    const { logger, warnings } = recordingLogger();
    const models = queryModels(client({ available: false, model_name: 'clip', vectors: [], reason: 'clip: not in MODELS_DIR' }), logger);
    expect(await models.embed(orgId, { text: 'a red car' })).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it.each([
    ['down', new ApiError('service_unavailable', 'embed-service is unavailable')],
    ['too slow', new ApiError('deadline_exceeded', 'The deadline passed')],
  ])('degrades to lexical search when embed-service is %s, and logs it', async (_name, error) => {
    const { logger, warnings } = recordingLogger();
    const models = queryModels(client(error), logger);
    expect(await models.embed(orgId, { text: 'a red car' })).toBeUndefined();
    expect(await models.imageLabels(orgId, Buffer.from('x'))).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/embed-service did not answer \(query vector\): this search runs without it/);
  });

  it('passes on what is wrong with the query itself', async () => {
    const { logger } = recordingLogger();
    const models = queryModels(client(new ApiError('unsupported_file_type', 'An image is not a JPEG, PNG, WebP or GIF image.')), logger);
    await expect(models.embed(orgId, { image: Buffer.from('nope') })).rejects.toMatchObject({ code: 'unsupported_file_type' });
  });

  it('without an embed-service: no vectors, no labels, said once at start', async () => {
    const { logger, warnings } = recordingLogger();
    const models = queryModels(undefined, logger);
    expect(await models.embed(orgId, { text: 'x' })).toBeUndefined();
    expect(await models.imageLabels(orgId, Buffer.from('x'))).toBeUndefined();
    expect(warnings).toEqual(['no embed-service configured: searches run on the indexed words and labels only, without vectors']);
  });
});

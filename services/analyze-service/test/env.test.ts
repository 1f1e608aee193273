import { z } from 'zod';
import { analyzeEnvShape, analyzeOptionsFromEnv } from '../src/env';

const parse = (env: Record<string, string>) =>
  analyzeOptionsFromEnv(
    z.object(analyzeEnvShape).parse({ INDEX_SERVICE_ADDR: 'index:50051', SEARCH_SERVICE_ADDR: 'search:50053', ...env }),
  );

describe('which provider a deployment runs', () => {
  it.each<[string, Record<string, string>, unknown]>([
    ['the bundled extractive provider by default', {}, undefined],
    [
      'an OpenAI-compatible server when asked',
      { ANALYZE_PROVIDER: 'openai', LLM_BASE_URL: 'http://vllm:8000/v1', LLM_MODEL: 'qwen', LLM_API_KEY: 'k' },
      { baseUrl: 'http://vllm:8000/v1', model: 'qwen', apiKey: 'k', timeoutMs: 60_000 },
    ],
    [
      'the model settings ignored for extractive',
      { ANALYZE_PROVIDER: 'extractive', LLM_BASE_URL: 'http://vllm:8000/v1', LLM_MODEL: 'qwen' },
      undefined,
    ],
  ])('%s', (_name, env, llm) => {
    const options = parse(env);
    expect(options).toMatchObject({ indexServiceAddress: 'index:50051', searchServiceAddress: 'search:50053' });
    expect(options.llm).toEqual(llm);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['openai without a URL', { ANALYZE_PROVIDER: 'openai', LLM_MODEL: 'qwen' }, /LLM_BASE_URL and LLM_MODEL/],
    ['openai without a model', { ANALYZE_PROVIDER: 'openai', LLM_BASE_URL: 'http://vllm:8000/v1' }, /LLM_BASE_URL and LLM_MODEL/],
    ['an unknown provider', { ANALYZE_PROVIDER: 'gpt' }, /ANALYZE_PROVIDER|Invalid/],
  ])('refuses %s', (_name, env, message) => {
    expect(() => parse(env)).toThrow(message);
  });
});

/*
 * routes/deps.ts: the one answer for a capability this server was started without (501
 * not_implemented, in the words each endpoint has always given), and the part itself when present.
 */
import { ApiError } from '@vus/core';
import { configured, notConfigured, type Capability } from '../src/routes/deps';

const WORDS: [Capability, string][] = [
  ['tasks', 'Indexing tasks: no task-service is configured on this server.'],
  ['assets', 'Assets: no task-service is configured on this server.'],
  ['embedAssets', 'Assets: this server has no task-service configured.'],
  ['webhooks', 'Webhooks: no task-service is configured on this server.'],
  ['search', 'Search: this server has no search-service configured.'],
  ['generate', 'Text generation: this server has no analyze-service configured.'],
  ['embed', 'Embeddings: this server has no embed-service configured.'],
  ['videoEmbeddings', 'Video embeddings: this server has no embed-service configured.'],
  ['classify', 'Classification: this server has no classify-service configured.'],
  ['uploads', 'Uploads need a blob store, and none is configured: send a URL.'],
  ['billing', 'Billing is not configured on this gateway (BILLING_SERVICE_ADDR).'],
];

describe('notConfigured', () => {
  it.each(WORDS)('%s: 501 not_implemented, "%s"', (capability, message) => {
    const error = notConfigured(capability);
    expect(error).toBeInstanceOf(ApiError);
    expect([error.code, error.httpStatus, error.message, error.details]).toEqual(['not_implemented', 501, message, undefined]);
  });

  it('names the parameter when given one', () => {
    expect(notConfigured('uploads', { param: 'video.media_source.base64_string' }).details).toEqual({
      param: 'video.media_source.base64_string',
    });
  });
});

describe('configured', () => {
  it.each([
    ['a client', { search: true }, false],
    ['undefined', undefined, true],
    ['null', null, true],
  ])('%s: %p → throws %p', (_name, part, throws) => {
    const take = () => configured(part as object | undefined, 'search');
    if (throws) expect(take).toThrow('Search: this server has no search-service configured.');
    else expect(take()).toBe(part);
  });
});

/*
 * SPEC §8's categories, as the endpoint descriptors declare them: each request is matched to its
 * endpoint by the gateway's own finder, and counted as that descriptor's `rate` says.
 */
import { categoriesOf } from '../src/limits/categories';
import { endpointsOf, servingEndpoint } from './endpoint-list';

const ENDPOINTS = endpointsOf('v1.3');

describe('rate-limit categories of SPEC §8', () => {
  it.each([
    ['POST', '/tasks', {}, ['index']],
    ['POST', '/tasks/external-provider', {}, ['index']],
    ['POST', '/tasks/transfers', {}, ['index']],
    ['POST', '/indexes/6528dde58f9cd95a98cbd075/indexed-assets', {}, ['index']],
    ['POST', '/assets', {}, ['upload']],
    // A multipart upload is one upload: created once, in Upload; reporting its chunks and asking for
    // more URLs are parts of that upload (and its chunk PUTs are outside the API), not more uploads.
    ['POST', '/assets/multipart-uploads', {}, ['upload']],
    ['POST', '/assets/multipart-uploads/:uploadId', {}, []],
    ['POST', '/assets/multipart-uploads/:uploadId/presigned-urls', {}, []],
    ['GET', '/assets/multipart-uploads', {}, []],
    ['POST', '/search', {}, ['search']],
    ['POST', '/search-v2', {}, ['search']],
    ['POST', '/combined-search', {}, ['search']],
    ['POST', '/search/combined', {}, ['search']],
    ['POST', '/beta/search', {}, ['search']],
    // Later pages are free, in both the GET and the deprecated POST form.
    ['GET', '/search/6785b870-66fb-4c0f-a80c-cbf307d2d0f9-2', {}, []],
    ['POST', '/search/6785b870-66fb-4c0f-a80c-cbf307d2d0f9-2', {}, []],
    ['POST', '/analyze', {}, ['analyze']],
    ['POST', '/generate', {}, ['analyze']],
    ['POST', '/gist', {}, ['analyze']],
    ['POST', '/summarize', {}, ['analyze']],
    ['POST', '/responses', {}, ['analyze']],
    ['POST', '/embed/tasks', {}, ['embed_video']],
    ['POST', '/embed', { text: 'a dog' }, ['embed_text']],
    ['POST', '/embed', { image_url: 'https://example.com/a.png' }, ['embed_image']],
    ['POST', '/embed', { audio_file: '…' }, ['embed_audio']],
    ['POST', '/embed', { text: 'a dog', image_url: 'https://example.com/a.png' }, ['embed_text', 'embed_image']],
    ['POST', '/embed', {}, []],
    ['POST', '/embed-v2', { input_type: 'text' }, ['embed_text']],
    ['POST', '/embed-v2', { input_type: 'image' }, ['embed_image']],
    ['POST', '/embed-v2', { input_type: 'text_image' }, ['embed_text_image']],
    ['POST', '/embed-v2', { input_type: 'audio' }, ['embed_audio']],
    ['POST', '/embed-v2', { input_type: 'video' }, ['embed_video']],
    ['POST', '/embed-v2', { input_type: 'multi_input', multi_input: { input_text: 'x' } }, ['embed_text_image']],
    ['POST', '/embed-v2', { input_type: 'multi_input', multi_input: {} }, ['embed_image']],
    ['POST', '/embed-v2/tasks', { input_type: 'audio' }, ['embed_audio']],
    ['POST', '/embed-v2/tasks', { input_type: 'video' }, ['embed_video']],
    ['POST', '/embed-v2', { input_type: 'hologram' }, []],
    // Classification is searches: one search request; its pages are free.
    ['POST', '/classify', {}, ['search']],
    ['POST', '/classify/bulk', {}, ['search']],
    ['GET', '/classify/6528dde58f9cd95a98cbd075-2', {}, []],
    // Outside the table: not limited.
    ['GET', '/search/abc', {}, []],
    ['GET', '/tasks', {}, []],
    ['POST', '/indexes', {}, []],
    ['DELETE', '/tasks/6528dde58f9cd95a98cbd075', {}, []],
  ])('%s %s %j', async (method, path, body, expected) => {
    const endpoint = await servingEndpoint(ENDPOINTS, method, path);
    expect(endpoint).toBeDefined();
    expect(categoriesOf(endpoint, body)).toEqual(expected);
  });
});

describe('v1, whose task endpoints are under /indexes', () => {
  it.each([
    ['POST', '/indexes/tasks', ['index']],
    ['POST', '/indexes/tasks/transfers', ['index']],
    ['GET', '/indexes/tasks', []],
    ['POST', '/indexes', []],
  ])('%s %s', async (method, path, expected) => {
    expect(categoriesOf(await servingEndpoint(endpointsOf('v1'), method, path), {})).toEqual(expected);
  });
});

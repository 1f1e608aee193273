import { describeModels, type ProviderStatus } from '../src';

const provider = (
  provider: string,
  kind: ProviderStatus['kind'],
  state: ProviderStatus['state'],
  model = `${provider}-model`,
): ProviderStatus => ({
  capability: 'visual_embedder',
  provider,
  model,
  kind,
  state,
});

describe('describeModels: the start-up line about models', () => {
  it.each([
    [
      'nothing downloaded',
      [
        provider('paddleocr-v4', 'bundled', 'available'),
        provider('clip', 'downloadable', 'unavailable'),
        provider('whisper', 'downloadable', 'unavailable'),
      ],
      'bundled paddleocr-v4; not downloaded clip, whisper: the bundled ones stand in (`npm run models -- list` says what each adds)',
    ],
    [
      'CLIP downloaded and loaded, PocketSphinx not installed',
      [
        provider('paddleocr-v4', 'bundled', 'loaded'),
        provider('clip', 'downloadable', 'loaded', 'Xenova/clip'),
        provider('pocketsphinx', 'bundled', 'unavailable'),
      ],
      'bundled paddleocr-v4; downloaded clip (Xenova/clip); not installed pocketsphinx',
    ],
    ['an empty registry', [], 'no bundled model'],
  ])('%s', (_case, status, line) => {
    expect(describeModels(status)).toBe(line);
  });
});

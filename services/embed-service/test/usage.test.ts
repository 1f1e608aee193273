/* What one embedding served is metered for (issue 16: requests and seconds of media). */
import { embeddingUsage } from '../src/usage';

const at = new Date('2026-01-10T12:00:00Z');

describe('embeddingUsage', () => {
  it.each([
    ['text', 0, ['requests:1:embed_text:e1/request']],
    ['image', 0, ['requests:1:embed_image:e1/request']],
    ['text_image', 0, ['requests:1:embed_text_image:e1/request']],
    ['audio', 12.5, ['requests:1:embed_audio:e1/request', 'media_seconds:12.5:embed_audio:e1/media']],
  ])('%s with %d s of media', (inputType, mediaSeconds, expected) => {
    const usage = embeddingUsage({ modelName: 'marengo3.0', inputType, mediaSeconds }, 'e1', at);
    expect(usage.map((u) => `${u.kind}:${u.quantity}:${u.category}:${u.idempotencyKey}`)).toEqual(expected);
  });
});

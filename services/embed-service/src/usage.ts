import type { MeteredUsage } from '@vus/events';
import type { Usage } from './embed';

/** The rate-limit category (SPEC §8) of each input type: the one whose requests the gateway counted. */
const CATEGORY_OF_INPUT: Readonly<Record<string, string>> = {
  text: 'embed_text',
  image: 'embed_image',
  audio: 'embed_audio',
  text_image: 'embed_text_image',
};

/**
 * What one embedding served is metered for (issue 16: requests and seconds of media): the request
 * in its input's category, and the seconds of audio embedded (Embed - Audio's DPH/DPD, and spend).
 * `key` names the embedding, so a redelivered event counts once.
 */
export function embeddingUsage(usage: Usage, key: string, at: Date): MeteredUsage[] {
  const category = CATEGORY_OF_INPUT[usage.inputType];
  const metered: MeteredUsage[] = [{ kind: 'requests', quantity: 1, idempotencyKey: `${key}/request`, occurredAt: at, category }];
  if (usage.mediaSeconds > 0)
    metered.push({
      kind: 'media_seconds',
      quantity: usage.mediaSeconds,
      idempotencyKey: `${key}/media`,
      occurredAt: at,
      category: 'embed_audio',
    });
  return metered;
}

import type { Category } from '@vus/limits';
import type { Endpoint } from '../endpoints/endpoint';

type Body = Readonly<Record<string, unknown>>;

const present = (body: Body, ...names: string[]) => names.some((n) => body[n] !== undefined && body[n] !== '');

/** v1.2/v1.3 `/embed`: one request may carry text, image and audio at once; each counts. */
export function embedCategories(body: Body): Category[] {
  const categories: Category[] = [];
  if (present(body, 'text')) categories.push('embed_text');
  if (present(body, 'image_url', 'image_file')) categories.push('embed_image');
  if (present(body, 'audio_url', 'audio_file')) categories.push('embed_audio');
  if (present(body, 'video_url', 'video_file')) categories.push('embed_video');
  return categories;
}

const EMBED_V2_INPUT: Record<string, Category> = {
  text: 'embed_text',
  image: 'embed_image',
  text_image: 'embed_text_image',
  audio: 'embed_audio',
  video: 'embed_video',
};

/** v1.3 `/embed-v2`: the category follows `input_type`; `multi_input` is text+image when it has text. */
export function embedV2Categories(body: Body): Category[] {
  const inputType = body.input_type;
  if (typeof inputType !== 'string') return [];
  if (inputType === 'multi_input') {
    const multi = body.multi_input as Body | undefined;
    return [multi && typeof multi === 'object' && present(multi, 'input_text') ? 'embed_text_image' : 'embed_image'];
  }
  const category = Object.hasOwn(EMBED_V2_INPUT, inputType) ? EMBED_V2_INPUT[inputType] : undefined;
  return category ? [category] : [];
}

/**
 * The rate-limit categories a request to `endpoint` counts in (SPEC §8 "Categories and their
 * endpoints", as each descriptor's `rate` says). Endpoints outside SPEC §8's table count in none.
 */
export function categoriesOf(endpoint: Pick<Endpoint, 'rate'> | undefined, body: unknown): Category[] {
  const rate = endpoint?.rate;
  if (rate === undefined) return [];
  if (typeof rate === 'string') return [rate];
  return rate(body && typeof body === 'object' ? (body as Body) : {});
}

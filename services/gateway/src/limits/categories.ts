import type { Category } from '@vus/limits';

type Body = Record<string, unknown>;

/** `POST <path>` → category, paths relative to the version root (SPEC §8 "Categories and their endpoints"). */
const FIXED: readonly [pattern: RegExp, category: Category][] = [
  // SPEC names POST /tasks; the external-provider upload creates the same indexing task.
  // v1 served the task endpoints under /indexes (/indexes/tasks…).
  [/^(?:\/indexes)?\/tasks\/?$/, 'index'],
  [/^\/tasks\/external-provider\/?$/, 'index'],
  // A transfer creates one indexing task per listed video: it counts as an indexing request.
  [/^(?:\/indexes)?\/tasks\/transfers\/?$/, 'index'],
  [/^\/indexes\/[^/]+\/indexed-assets\/?$/, 'index'],
  [/^\/assets\/?$/, 'upload'],
  // Creating a multipart upload is an upload (one file, up to 4 GiB). Its chunk PUTs (signed URLs,
  // outside the API), its reports and its further URLs are parts of that one upload: not counted again.
  [/^\/assets\/multipart-uploads\/?$/, 'upload'],
  // v1.2's multipart search and combined queries are the same search; fetching a next page
  // (GET /search/{token}) is free (API-CONTRACT §2.6).
  [/^\/(search|search-v2|combined-search|search\/combined|beta\/search)\/?$/, 'search'],
  // SPEC §8 gives classification no category; each of its prompts is a search, so a classification
  // counts as one search request (its later pages, like search's, are free).
  [/^\/classify(\/bulk)?\/?$/, 'search'],
  // v1.2's gist/summarize/generate are the text generation that v1.3 calls /analyze.
  [/^\/(analyze|gist|summarize|generate)\/?$/, 'analyze'],
  [/^\/embed\/tasks\/?$/, 'embed_video'],
];

const present = (body: Body, ...names: string[]) => names.some((n) => body[n] !== undefined && body[n] !== '');

/** v1.2/v1.3 `/embed`: one request may carry text, image and audio at once; each counts. */
function embedCategories(body: Body): Category[] {
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
function embedV2Category(body: Body): Category[] {
  const inputType = body.input_type;
  if (typeof inputType !== 'string') return [];
  if (inputType === 'multi_input') {
    const multi = body.multi_input as Body | undefined;
    return [multi && typeof multi === 'object' && present(multi, 'input_text') ? 'embed_text_image' : 'embed_image'];
  }
  const category = EMBED_V2_INPUT[inputType];
  return category ? [category] : [];
}

/**
 * The rate-limit categories a request counts in. Endpoints outside SPEC §8's table count in
 * none: the specification gives them no limits.
 */
export function categoriesOf(method: string, path: string, body: unknown): Category[] {
  if (method !== 'POST') return [];
  const fields: Body = body && typeof body === 'object' ? (body as Body) : {};
  for (const [pattern, category] of FIXED) if (pattern.test(path)) return [category];
  if (/^\/embed\/?$/.test(path)) return embedCategories(fields);
  if (/^\/embed-v2(\/tasks)?\/?$/.test(path)) return embedV2Category(fields);
  return [];
}

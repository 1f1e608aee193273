import type { VersionAdapter } from './adapter';
import { v11 } from './v1.1';

/**
 * v1.1.1 and v1.1.2 are documentation revisions of `/v1.1` (API-CONTRACT §1): the same URL
 * served them, so `/v1.1` takes the union of their requests, and each is also served under its
 * own name with v1.1's shapes. What the revisions changed is classify's request (not built
 * yet) and names `/v1.1` already accepts (`/combined-search`, global `search_options`,
 * `exact_match`).
 */

/** v1.1.1: classify's `labels` renamed `classes`; `threshold` an integer; still one `video_id`. */
export const v111: VersionAdapter = {
  ...v11,
  name: 'v1.1.1',
  revisionOf: 'v1.1',
  classify: { classesField: 'classes', videos: 'video_id', threshold: 'integer' },
};

/** v1.1.2: classify takes `video_ids`, `threshold` becomes an object, results are paged. */
export const v112: VersionAdapter = {
  ...v11,
  name: 'v1.1.2',
  revisionOf: 'v1.1',
  classify: { classesField: 'classes', videos: 'video_ids', threshold: 'object' },
};

import type { IndexClient, SearchClient } from '@vus/clients';
import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { familyOfEngine } from '@vus/domain';
import { serviceDirectory } from '../directory';
import { assembleTimeline } from '../evidence';
import type { GenerationProvider } from '../provider';
import { createResponses, type Library, type Responses } from './responses';
import { createSessionStore } from './store';

/** What retrieval searches: what is seen (shots, on-screen text, logos) and what is said, as far as the index has them. */
const RETRIEVAL_OPTIONS = ['visual', 'conversation', 'text_in_video', 'logo'];

/**
 * The knowledge store's internal index as responses read it: search-service's Search over the
 * items' videos (with the options the index's search engine has), and each video's evidence through
 * the directory analyze-service reads videos with. Calls stop when `signal` aborts.
 */
export function serviceLibrary(index: IndexClient, search: SearchClient): Library {
  const directory = serviceDirectory(index, search);
  return {
    async search(orgId, query, signal) {
      const ctx = { orgId, signal };
      const found = await index.getIndex(ctx, query.indexId);
      const indexed = new Set(found.models.filter((m) => familyOfEngine(m.name) === 'marengo').flatMap((m) => m.options));
      const options = RETRIEVAL_OPTIONS.filter((o) => indexed.has(o));
      if (options.length === 0) return [];
      const page = await search.search(ctx, {
        index_id: query.indexId,
        query_text: query.text,
        search_options: options,
        threshold: 'low',
        page_limit: query.limit,
        filter: { ids: [...query.videoIds] },
      });
      return page.clips.map((c) => ({ videoId: c.video_id, start: c.start, end: c.end, score: c.score }));
    },
    async timeline(orgId, indexId, videoId, signal) {
      return assembleTimeline(await directory.evidence(orgId, { id: videoId, indexId, version: '', engines: [] }, signal));
    },
  };
}

/** Responses over the services that hold the store's videos, with sessions in this service's database. */
export function serviceResponses(deps: {
  db: Database;
  eventsWritten: () => void;
  index: IndexClient;
  search: SearchClient;
  provider: GenerationProvider;
  clock: Clock;
  logger: Logger;
}): Responses {
  const { db, eventsWritten, index, search, ...generating } = deps;
  return createResponses({ store: createSessionStore(db, eventsWritten), library: serviceLibrary(index, search), ...generating });
}

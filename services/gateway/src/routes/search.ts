import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { Request, Response } from 'express';
import { atPaths, type Endpoint } from '../endpoints/endpoint';
import { QUERY_IMAGE_BYTES } from '../http/body';
import { outgoing } from '../http/context';
import { readQuery, scalar } from '../http/query';
import { thumbnailUrls } from '../http/media-urls';
import { presentSearchPage } from '../presenters/search';
import { requireEndpoint } from '../versions';
import { MAX_QUERY_IMAGES, parseCombinedSearch, parsePageQuery, parseSearch } from './search.schema';
import { configured, type RouteDeps } from './deps';
import * as docs from './search.docs';
import { versionOf } from './version';

/** A JSON body whose `query` is an object is v1.2's combined query sent to /search. */
function isCombinedQuery(body: Record<string, unknown>): boolean {
  return typeof body.query === 'object' && body.query !== null;
}

/**
 * Search (API-CONTRACT §5.5): POST /search dispatches on its body (multipart or JSON text query:
 * a single search; a JSON object query: combined), /search-v2 and /combined-search are v1.2's
 * names, and every flavour's later pages come from one token store under each GET path.
 */
/**
 * Query images, as multipart parts (API-CONTRACT §5.5: JPEG/PNG ≤ 5 MB each): up to
 * MAX_QUERY_IMAGES parts (v1.3; parseSearch holds other versions to one).
 */
const QUERY_IMAGE = {
  binaryParts: new Map([['query_media_file', QUERY_IMAGE_BYTES]]),
  binaryPartCounts: new Map([['query_media_file', MAX_QUERY_IMAGES]]),
};

export function searchEndpoints({ clients, timeoutMs, thumbnails }: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'thumbnails'>): Endpoint[] {
  const client = () => configured(clients.search, 'search');

  const respond = (req: Request, res: Response, page: SearchResultPage) => {
    const version = versionOf(res);
    const signed = thumbnailUrls(req, res, thumbnails);
    const thumbnailUrl = (clip: SearchClip, indexId: string) =>
      clip.thumbnail_key ? signed({ indexId, videoId: clip.video_id, time: clip.start }) : undefined;
    res.json(presentSearchPage(page, { version, thumbnailUrl }));
  };

  const single = async (req: Request, res: Response) => {
    const body = req.body as Record<string, unknown>;
    const version = versionOf(res);
    if (isCombinedQuery(body)) return combined(req, res);
    respond(req, res, await client().search(outgoing(res, timeoutMs), parseSearch(version, body)));
  };

  const combined = async (req: Request, res: Response) => {
    const version = versionOf(res);
    requireEndpoint(version, 'POST /combined-search');
    const request = parseCombinedSearch(version, req.body as Record<string, unknown>);
    respond(req, res, await client().combinedSearch(outgoing(res, timeoutMs), request));
  };

  const page = async (req: Request, res: Response) => {
    const { includeUserMetadata } = parsePageQuery({ include_user_metadata: scalar(readQuery(req.originalUrl), 'include_user_metadata') });
    const token = String(req.params.token);
    respond(
      req,
      res,
      await client().getSearchPage(outgoing(res, timeoutMs), { page_token: token, include_user_metadata: includeUserMetadata }),
    );
  };

  // Fetching a later page is free (API-CONTRACT §2.6): only the searches count.
  return [
    { method: 'post', path: '/search', rate: 'search', body: QUERY_IMAGE, doc: docs.search, handle: single },
    {
      method: 'post',
      path: '/search-v2',
      rate: 'search',
      body: QUERY_IMAGE,
      availability: 'POST /search-v2',
      doc: docs.searchV2,
      handle: single,
    },
    ...atPaths(['/combined-search', '/search/combined', '/beta/search'], {
      method: 'post',
      rate: 'search',
      availability: 'POST /combined-search',
      doc: docs.combined,
      handle: combined,
    }),
    // js uses GET /search/{token}, py GET /search-v2/{token} (API-CONTRACT §2.6); the deprecated POST form too.
    ...atPaths(['/search/:token'], { method: 'get', doc: docs.searchPage, handle: page }),
    ...atPaths(['/search-v2/:token'], { method: 'get', availability: 'POST /search-v2', doc: docs.searchPage, handle: page }),
    ...atPaths(['/combined-search/:token', '/beta/search/:token'], {
      method: 'get',
      availability: 'POST /combined-search',
      doc: docs.searchPage,
      handle: page,
    }),
    { method: 'post', path: '/search/:token', doc: docs.searchPage, handle: page },
    { method: 'post', path: '/search-v2/:token', availability: 'POST /search-v2', doc: docs.searchPage, handle: page },
  ];
}

import { errors, isApiError, knownId } from '@vus/core';
import type { IndexClient } from '@vus/clients';
import type { RequestHandler } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from './context';

/** The endpoints of the indexes API that name an index in their path: /indexes/{index_id} and below. */
const NAMES_AN_INDEX = /^\/indexes\/:indexId(\/|$)/;

/**
 * A knowledge store's index (internal, issue 33) is not the user's: every /indexes/{index_id}…
 * endpoint answers its id as an unknown one. The check is index-service's answer to GetIndex,
 * asked once before the endpoint's handler; the endpoints that do not name an index are unchanged.
 * An index that does not exist is left to the endpoint, so that it answers in its own order (a
 * missing body field before an unknown index, as it did).
 */
export function hidingInternalIndexes(index: IndexClient, timeoutMs: number, endpoints: readonly Endpoint[]): Endpoint[] {
  const userIndexOnly: RequestHandler = (req, res, next) => {
    const id = knownId('Index', req.params.indexId);
    index.getIndex(outgoing(res, timeoutMs), id).then(
      (found) => next(found.internal ? errors.notFound('Index', id) : undefined),
      (error: unknown) => next(isApiError(error) && error.code === 'resource_not_exist' ? undefined : error),
    );
  };
  return endpoints.map((endpoint) =>
    NAMES_AN_INDEX.test(endpoint.path) ? { ...endpoint, handle: [userIndexOnly, ...[endpoint.handle].flat()] } : endpoint,
  );
}

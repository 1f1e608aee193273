import { isApiError } from '@vus/core';
import type { IndexClient } from '@vus/clients';
import type { OutgoingContext } from '@vus/grpc';
import type { IndexDirectory } from './tasks/tasks';

export { createIndexClient, type IndexClient } from '@vus/clients';

const CALL_TIMEOUT_MS = 10_000;

async function exists(lookup: () => Promise<unknown>): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (error) {
    if (isApiError(error) && error.code === 'resource_not_exist') return false;
    throw error;
  }
}

/** The IndexDirectory port over index-service's RPCs. */
export function indexDirectory(client: IndexClient): IndexDirectory {
  const ctx = (orgId: string): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + CALL_TIMEOUT_MS) });
  return {
    indexExists: (orgId, indexId) => exists(() => client.getIndex(ctx(orgId), indexId)),
    videoExists: (orgId, indexId, videoId) => exists(() => client.getVideo(ctx(orgId), indexId, videoId)),
  };
}

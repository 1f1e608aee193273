import { isApiError } from '@vus/core';
import { type UserMetadata } from '@vus/domain';
import type { IndexClient } from '@vus/clients';
import { fromMetadataValues, toMetadataValues, type OutgoingContext, type PlainMetadataValue } from '@vus/grpc';
import type { IndexedVideos } from './assets/indexed-assets';
import type { IndexDirectory } from './tasks/tasks';

export { createIndexClient, type IndexClient } from '@vus/clients';

const CALL_TIMEOUT_MS = 10_000;

/** A call to index-service on behalf of the organization, with this service's deadline. */
export const indexCallContext = (orgId: string): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + CALL_TIMEOUT_MS) });

/** Runs `call` (a lookup or an action on one thing); false when that thing is not there (resource_not_exist). */
export async function unlessGone(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (error) {
    if (isApiError(error) && error.code === 'resource_not_exist') return false;
    throw error;
  }
}

/** The IndexDirectory port over index-service's RPCs. */
export function indexDirectory(client: IndexClient): IndexDirectory {
  const ctx = indexCallContext;
  return {
    indexExists: (orgId, indexId) => unlessGone(() => client.getIndex(ctx(orgId), indexId)),
    videoExists: (orgId, indexId, videoId) => unlessGone(() => client.getVideo(ctx(orgId), indexId, videoId)),
  };
}

/** The IndexedVideos port (indexed assets' videos) over index-service's RPCs. */
export function indexedVideos(client: IndexClient): IndexedVideos {
  const ctx = indexCallContext;
  return {
    async userMetadata(orgId, indexId, videoId) {
      try {
        const video = await client.getVideo(ctx(orgId), indexId, videoId);
        return fromMetadataValues(video.user_metadata) as UserMetadata;
      } catch (error) {
        if (isApiError(error) && error.code === 'resource_not_exist') return undefined;
        throw error;
      }
    },
    async updateUserMetadata(orgId, indexId, videoId, metadata) {
      const values = toMetadataValues(metadata as Record<string, PlainMetadataValue>);
      await client.updateVideo(ctx(orgId), { index_id: indexId, video_id: videoId, user_metadata: values });
    },
    delete: (orgId, indexId, videoId) => unlessGone(() => client.deleteVideo(ctx(orgId), indexId, videoId)),
  };
}

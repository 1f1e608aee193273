import { ApiError, isApiError, newId } from '@vus/core';
import { indexCallContext as ctx, indexedVideos, unlessGone, type IndexClient } from '../index-client';
import { isTerminal } from '../tasks/status';
import type { TaskService } from '../tasks/tasks';
import type { ItemIngestion } from './knowledge-stores';

/**
 * A store's index: Marengo for search and Pegasus for responses (generation), both over what is
 * seen and heard (v1.3's visual and audio, in the canonical options); thumbnails for citations.
 */
export const STORE_INDEX = Object.freeze({
  models: [
    { name: 'marengo3.0', options: ['visual', 'conversation', 'text_in_video', 'logo'] },
    { name: 'pegasus1.2', options: ['visual', 'conversation'] },
  ],
  addons: ['thumbnail'],
});

export interface IngestionDeps {
  index: IndexClient;
  tasks: TaskService;
}

/** ItemIngestion over index-service (the store's index) and this service's indexing tasks. */
export function itemIngestion({ index, tasks }: IngestionDeps): ItemIngestion {
  const videos = indexedVideos(index);

  return {
    async createIndex(orgId, storeId) {
      // Internal: its name is unique among internal indexes only, never a user's. Two first items at
      // once each make one (the store keeps the first recorded, knowledge-stores.ts), so the name is new each time.
      const name = `knowledge-store-${storeId}-${newId()}`;
      const created = await index.createIndex(ctx(orgId), { name, ...STORE_INDEX, internal: true });
      return created.id;
    },

    async deleteIndex(orgId, indexId) {
      await unlessGone(() => index.deleteIndex(ctx(orgId), indexId));
    },

    async startTask(orgId, indexId, item) {
      const { asset } = item;
      if (!asset.blobKey) throw new ApiError('parameter_invalid', `The asset ${asset.id} has no file.`, { param: 'asset_id' });
      // An image's still video is made by the worker (worker/stages/still.ts), so the item is created at once, queued.
      const task = await tasks.create(orgId, {
        indexId,
        source: { kind: item.assetType === 'image' ? 'image' : 'upload', blobKey: asset.blobKey },
        transcription: null,
        language: null,
        // Citations carry a stream of the moment (issue 33).
        enableVideoStream: true,
        userMetadata: {},
        filename: asset.filename,
        idempotencyKey: null,
        // A video item's media is the asset's file (kept when the task or video goes); an image's still is the task's own.
        assetId: item.assetType === 'image' ? null : asset.id,
      });
      return task.id;
    },

    async removeTask(orgId, taskId, options) {
      const task = await tasks.get(orgId, taskId).catch((error: unknown) => {
        if (isApiError(error) && error.code === 'resource_not_exist') return undefined;
        throw error;
      });
      if (!task) return true;
      if (!isTerminal(task.status)) return false;
      if (task.status === 'ready' && !options?.videoGone) await videos.delete(orgId, task.indexId, task.videoId);
      await unlessGone(() => tasks.delete(orgId, taskId));
      return true;
    },
  };
}

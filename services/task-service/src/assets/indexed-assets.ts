import { errors, isId, type PageInfo } from '@vus/core';
import { type UserMetadata } from '@vus/domain';
import { isTerminal, type TaskStatus } from '../tasks/status';
import type { TaskFilter, TaskRecord, TaskService, TaskSort, TaskStore } from '../tasks/tasks';
import type { AssetItemRemoval } from '../knowledge/knowledge-stores';
import type { AssetService } from './assets';

/**
 * Indexed assets (API-CONTRACT §5.9): an asset indexed into an index. Each is an indexing task
 * made from the asset's file (the same task pipeline as POST /tasks); its id is the task's video
 * id, so once ready it is also that video.
 */
export type IndexedAssetStatus = 'pending' | 'queued' | 'indexing' | 'ready' | 'failed';
export const INDEXED_ASSET_STATUSES: readonly IndexedAssetStatus[] = ['pending', 'queued', 'indexing', 'ready', 'failed'];

/** The task statuses an indexed-asset status stands for (the file is stored: no upload to wait for). */
const TASK_STATUSES_OF: Readonly<Record<IndexedAssetStatus, readonly TaskStatus[]>> = {
  pending: ['uploading', 'validating', 'pending'],
  queued: ['queued'],
  indexing: ['indexing'],
  ready: ['ready'],
  failed: ['failed'],
};

/** A task's status as an indexed asset's. Pure. */
export function indexedAssetStatus(status: TaskStatus): IndexedAssetStatus {
  return status === 'uploading' || status === 'validating' ? 'pending' : status;
}

export function taskStatusesOf(statuses: readonly IndexedAssetStatus[]): TaskStatus[] {
  return [...new Set(statuses.flatMap((s) => TASK_STATUSES_OF[s]))];
}

/** The indexed video, as index-service keeps it (over gRPC in production). */
export interface IndexedVideos {
  /** The video's user metadata, or undefined when there is no such video. */
  userMetadata(orgId: string, indexId: string, videoId: string): Promise<UserMetadata | undefined>;
  updateUserMetadata(orgId: string, indexId: string, videoId: string, metadata: Record<string, unknown>): Promise<void>;
  /** Deletes the video (and so its data); false when there was none. */
  delete(orgId: string, indexId: string, videoId: string): Promise<boolean>;
}

export interface IndexedAssetDeps {
  assets: AssetService;
  tasks: TaskService;
  taskStore: Pick<TaskStore, 'list' | 'deleteIn'>;
  videos: IndexedVideos;
  /** The knowledge-store items made of an asset: their videos and tasks go when it is deleted. */
  items?: AssetItemRemoval | undefined;
}

export interface IndexedAssetView {
  task: TaskRecord;
  status: IndexedAssetStatus;
  userMetadata: UserMetadata;
}

const view = (task: TaskRecord, userMetadata?: UserMetadata): IndexedAssetView => ({
  task,
  status: indexedAssetStatus(task.status),
  userMetadata: userMetadata ?? task.userMetadata,
});

export function createIndexedAssetService({ assets, tasks, taskStore, videos, items }: IndexedAssetDeps) {
  const found = async (orgId: string, indexId: string, id: string): Promise<TaskRecord> => {
    if (!isId(indexId) || !isId(id)) throw errors.notFound('Indexed asset', id);
    const { rows } = await taskStore.list(orgId, { indexId, videoIds: [id], assetsOnly: true }, NEWEST, 1, 0);
    const task = rows[0];
    if (!task) throw errors.notFound('Indexed asset', id);
    return task;
  };

  /**
   * A ready indexed asset whose video was deleted through the videos API went with it (get answers
   * 404), but its task still names the asset: the newest REFERENCE_CHECKS ready ones are checked
   * against index-service and the gone ones unlinked, so they neither list nor block a delete.
   */
  const forgetDeletedVideos = async (orgId: string, assetId: string): Promise<void> => {
    const { rows } = await taskStore.list(orgId, { assetId, assetsOnly: true, statuses: ['ready'] }, NEWEST, REFERENCE_CHECKS, 0);
    const gone: string[] = [];
    for (const task of rows) if ((await videos.userMetadata(orgId, task.indexId, task.videoId)) === undefined) gone.push(task.id);
    await assets.forgetIndexedAssets(orgId, assetId, gone);
  };

  return {
    /** An indexing task from the asset's file; the asset must be a ready video. Safe to replay with an idempotency key. */
    async create(
      orgId: string,
      input: { indexId: string; assetId: string; enableVideoStream: boolean; userMetadata: UserMetadata; idempotencyKey: string | null },
    ): Promise<IndexedAssetView> {
      const asset = await assets.get(orgId, input.assetId);
      if (asset.status !== 'ready' || !asset.blobKey) {
        throw errors.invalid('asset_id', `The asset is ${asset.status}; only a ready asset can be indexed.`);
      }
      if (asset.media?.assetType !== 'video') {
        throw errors.invalid(
          'asset_id',
          `The asset is ${asset.media ? `an ${asset.media.assetType}` : 'not'} a video; only videos can be indexed.`,
        );
      }
      const task = await tasks.create(orgId, {
        indexId: input.indexId,
        source: { kind: 'upload', blobKey: asset.blobKey },
        transcription: null,
        language: null,
        enableVideoStream: input.enableVideoStream,
        userMetadata: input.userMetadata,
        filename: asset.filename,
        idempotencyKey: input.idempotencyKey,
        assetId: asset.id,
      });
      return view(task);
    },

    async get(orgId: string, indexId: string, id: string): Promise<IndexedAssetView> {
      const task = await found(orgId, indexId, id);
      if (task.status !== 'ready') return view(task);
      // Once a video, its metadata is the video's (PATCH changes it there); a deleted video took the indexed asset with it.
      const metadata = await videos.userMetadata(orgId, indexId, task.videoId);
      if (!metadata) throw errors.notFound('Indexed asset', id);
      return view(task, metadata);
    },

    async list(
      orgId: string,
      indexId: string,
      filter: Omit<TaskFilter, 'statuses' | 'indexId' | 'assetsOnly' | 'ids' | 'videoIds'> & { statuses: IndexedAssetStatus[] },
      sort: TaskSort,
      paging: { page?: number | undefined; pageLimit?: number | undefined },
    ): Promise<{ data: IndexedAssetView[]; pageInfo: PageInfo }> {
      // tasks.list checks nothing about the index: an unknown one must be a 404, not an empty list.
      await tasks.statusCounts(orgId, indexId);
      const page = await tasks.list(
        orgId,
        { ...filter, indexId, assetsOnly: true, statuses: filter.statuses.length ? taskStatusesOf(filter.statuses) : undefined },
        sort,
        paging,
      );
      return { data: page.data.map((t) => view(t)), pageInfo: page.pageInfo };
    },

    /** The indexed assets made from the asset, in any index, newest first; an unknown asset is resource_not_exist. */
    async listByAsset(
      orgId: string,
      assetId: string,
      paging: { page?: number | undefined; pageLimit?: number | undefined },
    ): Promise<{ data: IndexedAssetView[]; pageInfo: PageInfo }> {
      await assets.get(orgId, assetId);
      await forgetDeletedVideos(orgId, assetId);
      const page = await tasks.list(orgId, { assetId, assetsOnly: true }, NEWEST, paging);
      return { data: page.data.map((t) => view(t)), pageInfo: page.pageInfo };
    },

    /**
     * DELETE /assets/{id}: refused (asset_in_use) while indexed assets reference the asset, unless
     * `force`. Indexed assets whose videos were deleted no longer count. Knowledge-store items made
     * of it go with it, and their videos and finished tasks after it.
     */
    async deleteAsset(orgId: string, assetId: string, force: boolean): Promise<void> {
      await assets.get(orgId, assetId);
      if (!force) await forgetDeletedVideos(orgId, assetId);
      const removeItems = await items?.deleting(orgId, assetId);
      await assets.delete(orgId, assetId, force);
      await removeItems?.();
    },

    /** Merges user metadata into the indexed video (a null value removes a key): only once it is ready. */
    async update(orgId: string, indexId: string, id: string, metadata: Record<string, unknown>): Promise<void> {
      const task = await found(orgId, indexId, id);
      if (task.status !== 'ready') {
        throw errors.invalid(
          'indexed_asset_id',
          `The indexed asset is ${indexedAssetStatus(task.status)}; its metadata can change once ready.`,
        );
      }
      await videos.updateUserMetadata(orgId, indexId, task.videoId, metadata);
    },

    /** Deletes the indexed video and its task; refused while it is being indexed. The asset stays. */
    async delete(orgId: string, indexId: string, id: string): Promise<void> {
      const task = await found(orgId, indexId, id);
      if (!isTerminal(task.status)) {
        throw errors.invalid(
          'indexed_asset_id',
          `The indexed asset is ${indexedAssetStatus(task.status)}; delete it once it is ready or failed.`,
        );
      }
      if (task.status === 'ready') await videos.delete(orgId, indexId, task.videoId);
      await taskStore.deleteIn(orgId, task.id, ['ready', 'failed']);
    },
  };
}

const NEWEST: TaskSort = { by: 'created_at', order: 'desc' };
/** How many of an asset's ready indexed assets are checked for deleted videos at once (one index-service call each). */
const REFERENCE_CHECKS = 200;

export type IndexedAssetService = ReturnType<typeof createIndexedAssetService>;

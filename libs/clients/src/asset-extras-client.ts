import { callUnary, type OutgoingContext } from '@vus/grpc';
import type { Asset } from '@vus/grpc/types/task/v1/Asset';
import type { ListIndexedAssetsByAssetRequest__Input } from '@vus/grpc/types/task/v1/ListIndexedAssetsByAssetRequest';
import type { ListIndexedAssetsResponse } from '@vus/grpc/types/task/v1/ListIndexedAssetsResponse';
import type { SetAssetUserMetadataRequest__Input } from '@vus/grpc/types/task/v1/SetAssetUserMetadataRequest';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';

/**
 * The asset RPCs of issue 32 §3 (user metadata, indexed assets by asset, forced delete), one
 * function each; task-client.ts spreads them into the task client.
 */
export function assetExtraCalls(client: TaskServiceClient) {
  return {
    setAssetUserMetadata: (ctx: OutgoingContext, request: SetAssetUserMetadataRequest__Input) =>
      callUnary<Asset>((md, opts, cb) => client.SetAssetUserMetadata(request, md, opts, cb), ctx),
    listIndexedAssetsByAsset: (ctx: OutgoingContext, request: ListIndexedAssetsByAssetRequest__Input) =>
      callUnary<ListIndexedAssetsResponse>((md, opts, cb) => client.ListIndexedAssetsByAsset(request, md, opts, cb), ctx),
    /** DELETE /assets/{id}?force=…: refused with asset_in_use while indexed assets reference it, unless force. */
    deleteAssetWith: (ctx: OutgoingContext, assetId: string, force: boolean) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteAsset({ asset_id: assetId, force }, md, opts, cb), ctx),
  };
}

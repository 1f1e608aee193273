import { knownId } from '@vus/core';
import type { TaskClient } from '@vus/clients';
import type { OutgoingContext } from '@vus/grpc';
import type { Asset } from '@vus/grpc/types/task/v1/Asset';
import type { Response } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { readQuery } from '../http/query';
import { presentBulkCreate, presentEntity, presentEntityCollection } from '../presenters/entities';
import { configured, type RouteDeps } from './deps';
import * as docs from './entities.docs';
import {
  parseCreateCollection,
  parseCreateEntities,
  parseCreateEntity,
  parseEntityAssets,
  parseListByAssetPage,
  parseListCollections,
  parseListEntities,
  parseUpdateCollection,
  parseUpdateEntity,
} from './entities.schema';

const collectionIdParam = (raw: string | string[] | undefined) => knownId('Entity collection', raw);
const entityIdParam = (raw: string | string[] | undefined) => knownId('Entity', raw);
const assetIdParam = (raw: string | string[] | undefined) => knownId('Asset', raw);

/**
 * How long creating an entity (or adding assets to one) waits for assets that are still
 * `processing`. An entity's reference images must be ready images, and an asset made by URL is
 * fetched and sniffed after POST /assets answers; the SDK's own examples/entities.ts creates the
 * entity right after its assets, so a short wait serves it instead of a 400 that depends on timing.
 * An image is ready in well under a second here; what is still processing after this is refused by
 * task-service with the asset's status.
 */
export const ASSET_SETTLE_MS = 30_000;
const SETTLE_POLL_MS = 250;
/** ListAssets' page: the asset ids asked at once. */
const ASSET_LOOKUP_CHUNK = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ids among `assets` still processing. Pure. */
export const processingIds = (assets: readonly Pick<Asset, 'id' | 'status'>[]): string[] =>
  assets.filter((a) => a.status === 'processing').map((a) => a.id);

/**
 * Waits (at most ASSET_SETTLE_MS, and not past the client's leaving) until none of the
 * organization's assets among `ids` is processing. Unknown and other organizations' ids are not
 * listed by task-service, so they are not waited for: task-service answers them as not found.
 * `target` reads what the request writes to (the collection, the entity) before any wait, so a
 * missing one is a 404 at once rather than after the wait.
 */
async function settleAssets(
  task: TaskClient,
  ctx: () => OutgoingContext,
  ids: readonly string[],
  res: Response,
  target: () => Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + ASSET_SETTLE_MS;
  let pending = [...new Set(ids)];
  let targetChecked = false;
  for (;;) {
    const still: string[] = [];
    for (let i = 0; i < pending.length; i += ASSET_LOOKUP_CHUNK) {
      const chunk = pending.slice(i, i + ASSET_LOOKUP_CHUNK);
      const page = await task.listAssets(ctx(), {
        page: { page: 1, page_limit: ASSET_LOOKUP_CHUNK },
        asset_ids: chunk,
        asset_types: [],
        filename: '',
      });
      still.push(...processingIds(page.data));
    }
    pending = still;
    if (pending.length === 0 || Date.now() + SETTLE_POLL_MS > deadline || res.writableEnded || res.destroyed) return;
    if (!targetChecked) await target();
    targetChecked = true;
    await sleep(SETTLE_POLL_MS);
  }
}

/**
 * Entity collections and their entities, and the entities of an asset (v1.3, twelvelabs-js 1.3.4
 * `entityCollections`, `entityCollections.entities`): task-service owns them beside the assets an
 * entity is shown by; this is HTTP only. Entity search (`<@entity_id>` in query_text) is search's.
 */
export function entityEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const task = () => configured(clients.task, 'entities');
  const availability = 'POST /entity-collections';
  const collectionPath = '/entity-collections/:entityCollectionId';
  const entityPath = `${collectionPath}/entities/:entityId`;
  return [
    {
      method: 'post',
      path: '/entity-collections',
      availability,
      doc: docs.createCollection,
      handle: async (req, res) => {
        const collection = await task().createEntityCollection(outgoing(res, timeoutMs), parseCreateCollection(req.body));
        res.status(201).json(presentEntityCollection(collection));
      },
    },
    {
      method: 'get',
      path: '/entity-collections',
      availability,
      doc: docs.listCollections,
      handle: async (req, res) => {
        const result = await task().listEntityCollections(outgoing(res, timeoutMs), parseListCollections(readQuery(req.originalUrl)));
        res.json({ data: result.data.map(presentEntityCollection), page_info: result.page_info });
      },
    },
    {
      method: 'get',
      path: collectionPath,
      availability,
      doc: docs.retrieveCollection,
      handle: async (req, res) => {
        const collection = await task().getEntityCollection(outgoing(res, timeoutMs), collectionIdParam(req.params.entityCollectionId));
        res.json(presentEntityCollection(collection));
      },
    },
    {
      method: 'patch',
      path: collectionPath,
      availability,
      doc: docs.updateCollection,
      handle: async (req, res) => {
        const request = parseUpdateCollection(collectionIdParam(req.params.entityCollectionId), req.body);
        res.json(presentEntityCollection(await task().updateEntityCollection(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'delete',
      path: collectionPath,
      availability,
      doc: docs.deleteCollection,
      handle: async (req, res) => {
        await task().deleteEntityCollection(outgoing(res, timeoutMs), collectionIdParam(req.params.entityCollectionId));
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: `${collectionPath}/entities`,
      availability,
      doc: docs.createEntity,
      handle: async (req, res) => {
        const collectionId = collectionIdParam(req.params.entityCollectionId);
        const request = parseCreateEntity(collectionId, req.body);
        const collectionOf = () => task().getEntityCollection(outgoing(res, timeoutMs), collectionId);
        await settleAssets(task(), () => outgoing(res, timeoutMs), request.entity?.asset_ids ?? [], res, collectionOf);
        res.status(201).json(presentEntity(await task().createEntity(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'post',
      path: `${collectionPath}/entities/bulk`,
      availability,
      doc: docs.createEntities,
      handle: async (req, res) => {
        const collectionId = collectionIdParam(req.params.entityCollectionId);
        const request = parseCreateEntities(collectionId, req.body);
        const ids = (request.entities ?? []).flatMap((e) => e.asset_ids ?? []);
        const collectionOf = () => task().getEntityCollection(outgoing(res, timeoutMs), collectionId);
        await settleAssets(task(), () => outgoing(res, timeoutMs), ids, res, collectionOf);
        res.status(201).json(presentBulkCreate(await task().createEntities(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'get',
      path: `${collectionPath}/entities`,
      availability,
      doc: docs.listEntities,
      handle: async (req, res) => {
        const request = parseListEntities(collectionIdParam(req.params.entityCollectionId), readQuery(req.originalUrl));
        const result = await task().listEntities(outgoing(res, timeoutMs), request);
        res.json({ data: result.data.map(presentEntity), page_info: result.page_info });
      },
    },
    {
      method: 'get',
      path: entityPath,
      availability,
      doc: docs.retrieveEntity,
      handle: async (req, res) => {
        const entity = await task().getEntity(
          outgoing(res, timeoutMs),
          collectionIdParam(req.params.entityCollectionId),
          entityIdParam(req.params.entityId),
        );
        res.json(presentEntity(entity));
      },
    },
    {
      method: 'patch',
      path: entityPath,
      availability,
      doc: docs.updateEntity,
      handle: async (req, res) => {
        const request = parseUpdateEntity(collectionIdParam(req.params.entityCollectionId), entityIdParam(req.params.entityId), req.body);
        res.json(presentEntity(await task().updateEntity(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'delete',
      path: entityPath,
      availability,
      doc: docs.deleteEntity,
      handle: async (req, res) => {
        await task().deleteEntity(
          outgoing(res, timeoutMs),
          collectionIdParam(req.params.entityCollectionId),
          entityIdParam(req.params.entityId),
        );
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: `${entityPath}/assets`,
      availability,
      doc: docs.addEntityAssets,
      handle: async (req, res) => {
        const [collectionId, entityId] = [collectionIdParam(req.params.entityCollectionId), entityIdParam(req.params.entityId)];
        const request = parseEntityAssets(collectionId, entityId, req.body);
        const entityOf = () => task().getEntity(outgoing(res, timeoutMs), collectionId, entityId);
        await settleAssets(task(), () => outgoing(res, timeoutMs), request.asset_ids ?? [], res, entityOf);
        res.json(presentEntity(await task().addEntityAssets(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'delete',
      path: `${entityPath}/assets`,
      availability,
      doc: docs.removeEntityAssets,
      handle: async (req, res) => {
        const request = parseEntityAssets(collectionIdParam(req.params.entityCollectionId), entityIdParam(req.params.entityId), req.body);
        res.json(presentEntity(await task().removeEntityAssets(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'get',
      path: '/assets/:assetId/entities',
      availability,
      doc: docs.listEntitiesByAsset,
      handle: async (req, res) => {
        const request = { asset_id: assetIdParam(req.params.assetId), page: parseListByAssetPage(readQuery(req.originalUrl)) };
        const result = await task().listEntitiesByAsset(outgoing(res, timeoutMs), request);
        res.json({ data: result.data.map(presentEntity), page_info: result.page_info });
      },
    },
  ];
}

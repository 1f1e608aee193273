import { knownId } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { readQuery } from '../http/query';
import { presentItemCollection } from '../presenters/knowledge-collections';
import { presentItem } from '../presenters/knowledge-stores';
import { configured, type RouteDeps } from './deps';
import * as docs from './knowledge-collections.docs';
import {
  parseCollectionItems,
  parseCollectionPage,
  parseCreateCollection,
  parseMemberPage,
  parseUpdateCollection,
} from './knowledge-collections.schema';

const storeIdParam = (raw: string | string[] | undefined) => knownId('Knowledge store', raw);
const collectionIdParam = (raw: string | string[] | undefined) => knownId('Knowledge store item collection', raw);

/**
 * Item collections of a knowledge store (v1.3, twelvelabs-js 1.3.4 `knowledgeStoreItemCollections`):
 * task-service owns them beside the stores and items; this is HTTP only. They share the knowledge
 * stores' availability (v1.3 only) and, like them, no rate category.
 */
export function knowledgeCollectionEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const task = () => configured(clients.task, 'knowledgeStores');
  const availability = 'POST /knowledge-stores';
  const base = '/knowledge-stores/:storeId/item-collections';
  const one = `${base}/:collectionId`;
  return [
    {
      method: 'get',
      path: base,
      availability,
      doc: docs.listCollections,
      handle: async (req, res) => {
        const request = { knowledge_store_id: storeIdParam(req.params.storeId), page: parseCollectionPage(readQuery(req.originalUrl)) };
        const result = await task().listKnowledgeStoreItemCollections(outgoing(res, timeoutMs), request);
        res.json({ data: result.data.map(presentItemCollection), page_info: result.page_info });
      },
    },
    {
      method: 'post',
      path: base,
      availability,
      doc: docs.createCollection,
      handle: async (req, res) => {
        const request = parseCreateCollection(storeIdParam(req.params.storeId), req.body);
        res.status(201).json(presentItemCollection(await task().createKnowledgeStoreItemCollection(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'get',
      path: one,
      availability,
      doc: docs.retrieveCollection,
      handle: async (req, res) => {
        const [storeId, collectionId] = [storeIdParam(req.params.storeId), collectionIdParam(req.params.collectionId)];
        res.json(presentItemCollection(await task().getKnowledgeStoreItemCollection(outgoing(res, timeoutMs), storeId, collectionId)));
      },
    },
    {
      method: 'patch',
      path: one,
      availability,
      doc: docs.updateCollection,
      handle: async (req, res) => {
        const request = parseUpdateCollection(storeIdParam(req.params.storeId), collectionIdParam(req.params.collectionId), req.body);
        res.json(presentItemCollection(await task().updateKnowledgeStoreItemCollection(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'delete',
      path: one,
      availability,
      doc: docs.deleteCollection,
      handle: async (req, res) => {
        const [storeId, collectionId] = [storeIdParam(req.params.storeId), collectionIdParam(req.params.collectionId)];
        await task().deleteKnowledgeStoreItemCollection(outgoing(res, timeoutMs), storeId, collectionId);
        res.status(204).end();
      },
    },
    {
      method: 'get',
      path: `${one}/items`,
      availability,
      doc: docs.listCollectionItems,
      handle: async (req, res) => {
        const request = {
          knowledge_store_id: storeIdParam(req.params.storeId),
          collection_id: collectionIdParam(req.params.collectionId),
          page: parseMemberPage(readQuery(req.originalUrl)),
        };
        const result = await task().listKnowledgeStoreItemCollectionItems(outgoing(res, timeoutMs), request);
        res.json({ data: result.data.map(presentItem), page_info: result.page_info });
      },
    },
    {
      method: 'post',
      path: `${one}/items/add`,
      availability,
      doc: docs.addCollectionItems,
      handle: async (req, res) => {
        const request = parseCollectionItems(storeIdParam(req.params.storeId), collectionIdParam(req.params.collectionId), req.body);
        res.json(presentItemCollection(await task().addKnowledgeStoreItemCollectionItems(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'post',
      path: `${one}/items/remove`,
      availability,
      doc: docs.removeCollectionItems,
      handle: async (req, res) => {
        const request = parseCollectionItems(storeIdParam(req.params.storeId), collectionIdParam(req.params.collectionId), req.body);
        await task().removeKnowledgeStoreItemCollectionItems(outgoing(res, timeoutMs), request);
        res.status(204).end();
      },
    },
  ];
}

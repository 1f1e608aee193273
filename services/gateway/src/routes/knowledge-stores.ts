import { knownId } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { readQuery } from '../http/query';
import { presentItem, presentKnowledgeStore } from '../presenters/knowledge-stores';
import { configured, type RouteDeps } from './deps';
import * as docs from './knowledge-stores.docs';
import {
  parseCreateItem,
  parseCreateKnowledgeStore,
  parseListItems,
  parseListPage,
  parseUpdateKnowledgeStore,
} from './knowledge-stores.schema';

const storeIdParam = (raw: string | string[] | undefined) => knownId('Knowledge store', raw);
const itemIdParam = (raw: string | string[] | undefined) => knownId('Knowledge store item', raw);

/**
 * Knowledge stores and their items (v1.3, twelvelabs-js 1.3.4 `knowledgeStores`, `knowledgeStoreItems`):
 * task-service owns them beside the assets an item is made of; this is HTTP only. Item collections are
 * knowledge-collections.ts, search over a store knowledge-search.ts, /responses responses.ts.
 */
export function knowledgeStoreEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const task = () => configured(clients.task, 'knowledgeStores');
  const availability = 'POST /knowledge-stores';
  return [
    {
      method: 'post',
      path: '/knowledge-stores',
      availability,
      doc: docs.createKnowledgeStore,
      handle: async (req, res) => {
        const store = await task().createKnowledgeStore(outgoing(res, timeoutMs), parseCreateKnowledgeStore(req.body));
        res.status(201).json(presentKnowledgeStore(store));
      },
    },
    {
      method: 'get',
      path: '/knowledge-stores',
      availability,
      doc: docs.listKnowledgeStores,
      handle: async (req, res) => {
        const result = await task().listKnowledgeStores(outgoing(res, timeoutMs), { page: parseListPage(readQuery(req.originalUrl)) });
        res.json({ data: result.data.map(presentKnowledgeStore), page_info: result.page_info });
      },
    },
    {
      method: 'get',
      path: '/knowledge-stores/:storeId',
      availability,
      doc: docs.retrieveKnowledgeStore,
      handle: async (req, res) => {
        res.json(presentKnowledgeStore(await task().getKnowledgeStore(outgoing(res, timeoutMs), storeIdParam(req.params.storeId))));
      },
    },
    {
      method: 'patch',
      path: '/knowledge-stores/:storeId',
      availability,
      doc: docs.updateKnowledgeStore,
      handle: async (req, res) => {
        const request = parseUpdateKnowledgeStore(storeIdParam(req.params.storeId), req.body);
        res.json(presentKnowledgeStore(await task().updateKnowledgeStore(outgoing(res, timeoutMs), request)));
      },
    },
    {
      method: 'delete',
      path: '/knowledge-stores/:storeId',
      availability,
      doc: docs.deleteKnowledgeStore,
      handle: async (req, res) => {
        await task().deleteKnowledgeStore(outgoing(res, timeoutMs), storeIdParam(req.params.storeId));
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: '/knowledge-stores/:storeId/items',
      availability,
      doc: docs.createItem,
      handle: async (req, res) => {
        const item = await task().createKnowledgeStoreItem(
          outgoing(res, timeoutMs),
          parseCreateItem(storeIdParam(req.params.storeId), req.body),
        );
        res.status(201).json(presentItem(item));
      },
    },
    {
      method: 'get',
      path: '/knowledge-stores/:storeId/items',
      availability,
      doc: docs.listItems,
      handle: async (req, res) => {
        const request = parseListItems(storeIdParam(req.params.storeId), readQuery(req.originalUrl));
        const result = await task().listKnowledgeStoreItems(outgoing(res, timeoutMs), request);
        res.json({ data: result.data.map(presentItem), page_info: result.page_info });
      },
    },
    {
      method: 'get',
      path: '/knowledge-stores/:storeId/items/:itemId',
      availability,
      doc: docs.retrieveItem,
      handle: async (req, res) => {
        const item = await task().getKnowledgeStoreItem(
          outgoing(res, timeoutMs),
          storeIdParam(req.params.storeId),
          itemIdParam(req.params.itemId),
        );
        res.json(presentItem(item));
      },
    },
    {
      method: 'delete',
      path: '/knowledge-stores/:storeId/items/:itemId',
      availability,
      doc: docs.deleteItem,
      handle: async (req, res) => {
        await task().deleteKnowledgeStoreItem(outgoing(res, timeoutMs), storeIdParam(req.params.storeId), itemIdParam(req.params.itemId));
        res.status(204).end();
      },
    },
  ];
}

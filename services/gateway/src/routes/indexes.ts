import { knownId } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { hidingInternalIndexes } from '../http/internal-indexes';
import { readQuery } from '../http/query';
import { presentIndex } from '../presenters/indexes';
import * as docs from './indexes.docs';
import { parseListIndexes, parseRenameIndex } from './indexes.schema';
import type { RouteDeps } from './deps';
import { versionOf } from './version';

const indexIdParam = (raw: string | string[] | undefined) => knownId('Index', raw);

export function indexEndpoints({ clients: { index }, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  return hidingInternalIndexes(index, timeoutMs, [
    {
      method: 'post',
      path: '/indexes',
      doc: docs.createIndex,
      handle: async (req, res) => {
        const created = await index.createIndex(outgoing(res, timeoutMs), versionOf(res).indexes.parseCreate(req.body));
        res.status(201).json({ _id: created.id });
      },
    },
    {
      method: 'get',
      path: '/indexes',
      doc: docs.listIndexes,
      handle: async (req, res) => {
        const version = versionOf(res);
        const result = await index.listIndexes(outgoing(res, timeoutMs), parseListIndexes(version, readQuery(req.originalUrl)));
        res.json({ data: result.data.map((i) => presentIndex(version, i)), page_info: result.page_info });
      },
    },
    {
      method: 'get',
      path: '/indexes/:indexId',
      doc: docs.retrieveIndex,
      handle: async (req, res) => {
        const found = await index.getIndex(outgoing(res, timeoutMs), indexIdParam(req.params.indexId));
        res.json(presentIndex(versionOf(res), found));
      },
    },
    {
      method: 'put',
      path: '/indexes/:indexId',
      doc: docs.renameIndex,
      handle: async (req, res) => {
        const indexId = indexIdParam(req.params.indexId);
        await index.renameIndex(outgoing(res, timeoutMs), indexId, parseRenameIndex(req.body));
        // No Content-Type on 204: js 0.1/0.2 would try to parse an empty JSON body (API-CONTRACT §2.4).
        res.status(204).end();
      },
    },
    {
      method: 'delete',
      path: '/indexes/:indexId',
      doc: docs.deleteIndex,
      handle: async (req, res) => {
        await index.deleteIndex(outgoing(res, timeoutMs), indexIdParam(req.params.indexId));
        res.status(204).end();
      },
    },
  ]);
}

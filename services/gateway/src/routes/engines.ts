import { Router } from 'express';
import type { IndexClient } from '../clients';
import { outgoing } from '../http/context';
import { parsePageQuery } from '../http/paging';
import { readQuery } from '../http/query';
import { presentEngine } from '../presenters/engines';
import { versionOf } from './version';

export function engineRoutes(index: IndexClient, timeoutMs: number): Router {
  const router = Router();

  router.get('/engines', async (req, res) => {
    const page = parsePageQuery(readQuery(req.originalUrl));
    const result = await index.listEngines(outgoing(res, timeoutMs), page.page, page.pageLimit);
    res.json({ data: result.data.map((e) => presentEngine(versionOf(res), e)), page_info: result.page_info });
  });

  router.get('/engines/:engineId', async (req, res) => {
    const engine = await index.getEngine(outgoing(res, timeoutMs), String(req.params.engineId));
    res.json(presentEngine(versionOf(res), engine));
  });

  return router;
}

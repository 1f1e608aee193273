import { Router } from 'express';
import type { IndexClient } from '../clients';
import { locals, outgoing } from '../http/context';
import { parsePageQuery } from '../http/paging';
import { readQuery } from '../http/query';
import { presentEngine } from '../presenters/engines';

export function engineRoutes(index: IndexClient, timeoutMs: number): Router {
  const router = Router();

  router.get('/engines', async (req, res) => {
    const page = parsePageQuery(readQuery(req.originalUrl));
    const result = await index.listEngines(outgoing(res, timeoutMs), page.page, page.pageLimit);
    res.json({ data: result.data.map((e) => presentEngine(locals(res).version!, e)), page_info: result.page_info });
  });

  router.get('/engines/:engineId', async (req, res) => {
    const engine = await index.getEngine(outgoing(res, timeoutMs), String(req.params.engineId));
    res.json(presentEngine(locals(res).version!, engine));
  });

  return router;
}

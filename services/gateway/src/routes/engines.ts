import { parseInput, resolvePage } from '@vus/core';
import { Router } from 'express';
import { z } from 'zod';
import type { IndexClient } from '../clients';
import { looseInt } from '../http/coerce';
import { locals, outgoing } from '../http/context';
import { readQuery, scalar } from '../http/query';
import { presentEngine } from '../presenters/engines';

const pageQuery = z.object({ page: looseInt.optional(), page_limit: looseInt.optional() });

export function engineRoutes(index: IndexClient, timeoutMs: number): Router {
  const router = Router();

  router.get('/engines', async (req, res) => {
    const query = readQuery(req.originalUrl);
    const input = parseInput(pageQuery, { page: scalar(query, 'page'), page_limit: scalar(query, 'page_limit') });
    const page = resolvePage({ page: input.page, pageLimit: input.page_limit });
    const result = await index.listEngines(outgoing(res, timeoutMs), page.page, page.pageLimit);
    res.json({ data: result.data.map((e) => presentEngine(locals(res).version!, e)), page_info: result.page_info });
  });

  router.get('/engines/:engineId', async (req, res) => {
    const engine = await index.getEngine(outgoing(res, timeoutMs), String(req.params.engineId));
    res.json(presentEngine(locals(res).version!, engine));
  });

  return router;
}

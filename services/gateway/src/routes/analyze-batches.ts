import { knownId } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { locals, outgoing } from '../http/context';
import { readQuery } from '../http/query';
import { presentBatch, presentCreatedBatch, presentResultItem } from '../presenters/analyze-tasks';
import * as docs from './analyze-batches.docs';
import { parseCreateBatch, parseListBatches } from './analyze-batches.schema';
import { configured, type RouteDeps } from './deps';

const batchIdParam = (raw: string | string[] | undefined) => knownId('Batch', raw);

/**
 * Analysis batches (v1.3, twelvelabs-js 1.3.4 `analyzeAsync.batches`): many analysis tasks made at
 * once with shared defaults; analyze-service owns them. Results are an NDJSON stream, one line per
 * item in request order, written as analyze-service reads them (never the whole batch in memory).
 */
export function analyzeBatchEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const analyze = () => configured(clients.analyze, 'generate');
  const availability = 'POST /analyze/tasks';
  return [
    {
      method: 'post',
      path: '/analyze/batches',
      availability,
      rate: 'analyze',
      doc: docs.createBatch,
      handle: async (req, res) => {
        const created = await analyze().createAnalyzeBatch(outgoing(res, timeoutMs), parseCreateBatch(req.body));
        res.status(201).json(presentCreatedBatch(created));
      },
    },
    {
      method: 'get',
      path: '/analyze/batches',
      availability,
      doc: docs.listBatches,
      handle: async (req, res) => {
        const page = await analyze().listAnalyzeBatches(outgoing(res, timeoutMs), parseListBatches(readQuery(req.originalUrl)));
        res.json({ data: page.data.map(presentBatch), page_info: page.page_info });
      },
    },
    {
      method: 'get',
      path: '/analyze/batches/:batchId',
      availability,
      doc: docs.retrieveBatch,
      handle: async (req, res) => {
        res.json(presentBatch(await analyze().getAnalyzeBatch(outgoing(res, timeoutMs), batchIdParam(req.params.batchId))));
      },
    },
    {
      method: 'delete',
      path: '/analyze/batches/:batchId',
      availability,
      doc: docs.deleteBatch,
      handle: async (req, res) => {
        await analyze().deleteAnalyzeBatch(outgoing(res, timeoutMs), batchIdParam(req.params.batchId));
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: '/analyze/batches/:batchId/cancel',
      availability,
      doc: docs.cancelBatch,
      handle: async (req, res) => {
        res.json(presentBatch(await analyze().cancelAnalyzeBatch(outgoing(res, timeoutMs), batchIdParam(req.params.batchId))));
      },
    },
    {
      method: 'get',
      path: '/analyze/batches/:batchId/results',
      availability,
      doc: docs.batchResults,
      handle: async (req, res) => {
        const abort = new AbortController();
        res.on('close', () => {
          if (!res.writableFinished) abort.abort();
        });
        const results = analyze().listAnalyzeBatchResults(outgoing(res, timeoutMs), batchIdParam(req.params.batchId), abort.signal);
        const items = results[Symbol.asyncIterator]();
        // The first item, or the refusal (an unknown batch): until then nothing is written.
        const first = await items.next();
        res.status(200).set('Content-Type', 'application/x-ndjson');
        try {
          for (let next = first; !next.done && !abort.signal.aborted; next = await items.next())
            res.write(`${JSON.stringify(presentResultItem(next.value))}\n`);
        } catch (error) {
          // Mid-stream there is no status left to send: the stream ends short, and the log says why.
          locals(res).logger.warn({ err: error }, 'batch results stream failed');
        } finally {
          await items.return?.();
          if (!abort.signal.aborted) res.end();
        }
      },
    },
  ];
}

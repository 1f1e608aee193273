import type { OutgoingContext } from '@vus/grpc';
import type { EmbedClient } from '../clients';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { parsePageQuery } from '../http/paging';
import { readQuery } from '../http/query';
import { presentEngine } from '../presenters/engines';
import { presentProviders, type ProvidersListing } from '../presenters/providers';
import type { RouteDeps } from './deps';
import * as docs from './engines.docs';
import { versionOf } from './version';

export function engineEndpoints({ clients: { index, embed }, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  // The list also says which models serve the engines (`providers`; the SDKs read only `data`).
  const list: Endpoint['handle'] = async (req, res) => {
    const page = parsePageQuery(readQuery(req.originalUrl));
    const [result, providers] = await Promise.all([
      index.listEngines(outgoing(res, timeoutMs), page.page, page.pageLimit),
      providersListing(embed, outgoing(res, timeoutMs)),
    ]);
    res.json({
      data: result.data.map((e) => presentEngine(versionOf(res), e)),
      page_info: result.page_info,
      ...(providers ? { providers } : {}),
    });
  };
  return [
    { method: 'get', path: '/engines', doc: docs.listEngines, handle: list },
    {
      method: 'get',
      path: '/engines/:engineId',
      doc: docs.retrieveEngine,
      handle: async (req, res) => {
        const engine = await index.getEngine(outgoing(res, timeoutMs), String(req.params.engineId));
        res.json(presentEngine(versionOf(res), engine));
      },
    },
  ];
}

/**
 * The models behind the engines, from embed-service; undefined without one or when it does not
 * answer (the engines themselves are still listed).
 */
export async function providersListing(embed: EmbedClient | undefined, ctx: OutgoingContext): Promise<ProvidersListing | undefined> {
  if (!embed) return undefined;
  const answer = await embed.listModels(ctx).catch(() => undefined);
  return answer && presentProviders(answer.providers);
}

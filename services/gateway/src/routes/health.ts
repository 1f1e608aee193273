import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import type { RouteDeps } from './deps';
import { providersListing } from './engines';

/** Liveness, the models behind the engines, and readiness: public, outside any version. */
export function healthEndpoints({
  clients,
  timeoutMs,
  readiness,
}: Pick<RouteDeps, 'clients' | 'timeoutMs'> & { readiness: () => Promise<Record<string, boolean>> }): Endpoint[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      handle: (_req, res) => {
        res.json({ status: 'ok' });
      },
    },
    {
      // Which models serve the engines (the speech recogniser …), as the engines listing says.
      method: 'get',
      path: '/health',
      handle: async (_req, res) => {
        const providers = await providersListing(clients.embed, outgoing(res, timeoutMs));
        res.json({ status: 'ok', ...(providers ? { providers } : {}) });
      },
    },
    {
      method: 'get',
      path: '/readyz',
      handle: async (_req, res) => {
        const checks = await readiness();
        const ready = Object.values(checks).every(Boolean);
        res
          .status(ready ? 200 : 503)
          .json(ready ? { status: 'ready', checks } : { code: 'service_unavailable', message: 'Not ready.', checks });
      },
    },
  ];
}

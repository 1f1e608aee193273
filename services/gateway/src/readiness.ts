import type { Logger } from '@vus/core';
import { internalSecret, peerHealth, serviceEntry, type GrpcServiceName, type PeerHealth } from '@vus/grpc';

/** The peers the gateway calls, by the option that configures each. */
export interface PeerAddresses {
  indexServiceAddress: string;
  /** task-service (indexing tasks); without it the task endpoints answer 501. */
  taskServiceAddress?: string | undefined;
  /** search-service; without it the search endpoints answer 501. */
  searchServiceAddress?: string | undefined;
  /** analyze-service; without it the text generation endpoints answer 501. */
  analyzeServiceAddress?: string | undefined;
  /** embed-service; without it the embedding endpoints answer 501. */
  embedServiceAddress?: string | undefined;
  /** classify-service; without it the classify endpoints answer 501. */
  classifyServiceAddress?: string | undefined;
  /** Effective limits per organization; without it every organization has the Free plan's. */
  billingServiceAddress?: string | undefined;
}

/** What was last said of each refused peer, so that a probe every few seconds logs a change once. */
const refusals = new Map<string, boolean>();

/**
 * Each configured peer's readiness: grpc.health.v1 for its registered service name, asked with this
 * process's internal secret. A peer that refuses the secret is not ready — every call to it would
 * answer 503 — and the log says why, once per change.
 */
export async function peersReady(options: PeerAddresses & { logger: Logger }): Promise<Record<string, boolean>> {
  const peers: [GrpcServiceName, string | undefined][] = [
    ['index-service', options.indexServiceAddress],
    ['task-service', options.taskServiceAddress],
    ['search-service', options.searchServiceAddress],
    ['analyze-service', options.analyzeServiceAddress],
    ['embed-service', options.embedServiceAddress],
    ['classify-service', options.classifyServiceAddress],
    ['billing-service', options.billingServiceAddress],
  ];
  const configured = peers.filter((peer): peer is [GrpcServiceName, string] => Boolean(peer[1]));
  const answers = await Promise.all(
    configured.map(async ([name, address]) => {
      const health = await peerHealth(address, serviceEntry(name).protoService!, { secret: internalSecret() });
      reportRefusal(options.logger, name, address, health);
      return [name, health === 'serving'] as const;
    }),
  );
  return Object.fromEntries(answers);
}

function reportRefusal(logger: Logger, name: string, address: string, health: PeerHealth): void {
  const key = `${name} ${address}`;
  const refused = health === 'refused';
  if (refused === (refusals.get(key) ?? false)) return;
  refusals.set(key, refused);
  if (refused) {
    logger.error(
      { service: name, address },
      `${name} refuses this gateway's INTERNAL_GRPC_SECRET: every call to it answers 503 until every process has the same secret`,
    );
  } else logger.info({ service: name, address }, `${name} accepts this gateway's INTERNAL_GRPC_SECRET again`);
}

import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import type { EventBus, SubscriptionHandle } from '@vus/events';
import { AddressGuard, parseAllowList, type AllowList, type Resolver } from '@vus/fetch';
import { z } from 'zod';
import { WebhookDispatcher, type DispatcherOptions } from './dispatcher';
import { WEBHOOK_FANOUT_GROUP, webhookFanout } from './fanout';
import { webhookHandlers, type WebhookHandlers } from './rpc';
import { createDispatchStore, createWebhookStore } from './store';
import { createWebhookService } from './webhooks';

export type DispatchSettings = Omit<DispatcherOptions, 'store' | 'guard' | 'clock' | 'logger'>;

export interface WebhookOptions {
  /** Private destinations allowed anyway (WEBHOOK_ALLOWED_HOSTS); default: public addresses only. */
  allowList?: AllowList;
  /** How host names resolve (tests inject DNS answers); default: the system resolver. */
  resolver?: Resolver;
  /** Run the dispatcher in this process (default true). */
  dispatch?: boolean;
  dispatcher?: DispatchSettings;
}

/** The webhook settings of a task-service process, to merge into its config schema. */
export const webhookEnvShape = {
  /** Host names and CIDR ranges webhooks may reach although private (tests, on-premise). */
  WEBHOOK_ALLOWED_HOSTS: z.string().optional(),
  WEBHOOK_DISPATCH: z.enum(['true', 'false']).default('true'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().positive().optional(),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().optional(),
  WEBHOOK_LEASE_MS: z.coerce.number().int().positive().optional(),
  WEBHOOK_POLL_MS: z.coerce.number().int().positive().optional(),
};

type WebhookEnv = z.infer<z.ZodObject<typeof webhookEnvShape>>;

export function webhookOptionsFromEnv(env: WebhookEnv): WebhookOptions {
  return {
    allowList: parseAllowList(env.WEBHOOK_ALLOWED_HOSTS, 'WEBHOOK_ALLOWED_HOSTS'),
    dispatch: env.WEBHOOK_DISPATCH === 'true',
    dispatcher: {
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      leaseMs: env.WEBHOOK_LEASE_MS,
      pollMs: env.WEBHOOK_POLL_MS,
    },
  };
}

export interface RunningWebhooks {
  handlers: WebhookHandlers;
  stop(): Promise<void>;
}

/**
 * Webhooks inside task-service: the API handlers, the fan-out of `task.status-changed` events
 * into deliveries (when there is a bus), and the dispatcher that sends them.
 */
export async function startWebhooks(deps: {
  db: Database;
  bus: EventBus | undefined;
  clock: Clock;
  logger: Logger;
  options?: WebhookOptions | undefined;
}): Promise<RunningWebhooks> {
  const { db, bus, clock, logger, options } = deps;
  const guard = new AddressGuard(options?.allowList, options?.resolver);
  const store = createWebhookStore(db);
  const dispatcher =
    options?.dispatch === false ? undefined : new WebhookDispatcher({ ...options?.dispatcher, store: createDispatchStore(db), guard, clock, logger });
  dispatcher?.start();
  let fanout: SubscriptionHandle | undefined;
  if (bus) {
    fanout = await bus.subscribe({
      group: WEBHOOK_FANOUT_GROUP,
      types: ['task.status-changed'],
      handler: webhookFanout({ db, store, clock, logger, planned: () => dispatcher?.wake() }),
    });
  } else {
    logger.warn('no event bus configured: no webhook deliveries are planned');
  }
  return {
    handlers: webhookHandlers(createWebhookService({ store, guard, clock })),
    async stop() {
      await fanout?.stop();
      await dispatcher?.stop();
    },
  };
}

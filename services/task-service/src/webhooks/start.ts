import { SecretBox, type Clock, type Logger } from '@vus/core';
import type { Database } from '@vus/db';
import type { BackgroundJob, Consumer } from '@vus/service';
import { AddressGuard, parseAllowList, type AllowList, type Resolver } from '@vus/fetch';
import { createJobStore } from '@vus/jobs';
import { z } from 'zod';
import { WebhookDispatcher, type DispatcherOptions } from './dispatcher';
import { WEBHOOK_FANOUT_GROUP, webhookFanout } from './fanout';
import { webhookHandlers, type WebhookHandlers } from './rpc';
import { createDispatchStore, createWebhookStore, sealStoredSecrets } from './store';
import { createWebhookService } from './webhooks';

export type DispatchSettings = Omit<DispatcherOptions, 'store' | 'jobs' | 'guard' | 'clock' | 'logger'>;

export interface WebhookOptions {
  /** Private destinations allowed anyway (WEBHOOK_ALLOWED_HOSTS); default: public addresses only. */
  allowList?: AllowList;
  /** How host names resolve (tests inject DNS answers); default: the system resolver. */
  resolver?: Resolver;
  /**
   * The key signing secrets are encrypted with at rest (WEBHOOK_SECRET_KEY); without it they are
   * stored as they are (a warning at start). Secrets stored before it was set are encrypted at start.
   */
  secrets?: SecretBox | undefined;
  /** Run the dispatcher in this process (default true). */
  dispatch?: boolean;
  dispatcher?: DispatchSettings;
}

/** The webhook settings of a task-service process, to merge into its config schema. */
export const webhookEnvShape = {
  /** Host names and CIDR ranges webhooks may reach although private (tests, on-premise). */
  WEBHOOK_ALLOWED_HOSTS: z.string().optional(),
  /** 32 bytes (base64 or hex) that encrypt the signing secrets at rest (AES-256-GCM). */
  WEBHOOK_SECRET_KEY: z.string().optional(),
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
    secrets: env.WEBHOOK_SECRET_KEY ? SecretBox.fromKey(env.WEBHOOK_SECRET_KEY, 'WEBHOOK_SECRET_KEY') : undefined,
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

/**
 * Webhooks inside task-service, as parts of the service: the API handlers, the fan-out of
 * `task.status-changed` events into deliveries (a consumer: with a bus), and the dispatcher that
 * sends them (a background job, unless dispatch is off).
 */
export function webhookParts(deps: { db: Database; clock: Clock; logger: Logger; options?: WebhookOptions | undefined }): {
  handlers: WebhookHandlers;
  consumer: Consumer;
  jobs: BackgroundJob[];
} {
  const { db, clock, logger, options } = deps;
  const guard = new AddressGuard(options?.allowList, options?.resolver);
  const secrets = options?.secrets;
  const store = createWebhookStore(db, secrets);
  const dispatcher =
    options?.dispatch === false
      ? undefined
      : new WebhookDispatcher({
          ...options?.dispatcher,
          store: createDispatchStore(db, secrets),
          jobs: createJobStore(db),
          guard,
          clock,
          logger,
        });
  // Once at start: encrypt what was stored before the key was set (reads take either form meanwhile).
  const sealing: BackgroundJob = {
    name: 'webhook-secret-sealing',
    start: async () => {
      if (!secrets) {
        logger.warn('WEBHOOK_SECRET_KEY is not set: webhook signing secrets are stored unencrypted');
      } else {
        const sealed = await sealStoredSecrets(db, secrets);
        if (sealed > 0) logger.info({ sealed }, 'encrypted the webhook signing secrets stored before WEBHOOK_SECRET_KEY was set');
      }
      return { stop: async () => undefined };
    },
  };
  return {
    handlers: webhookHandlers(createWebhookService({ store, guard, clock })),
    consumer: {
      group: WEBHOOK_FANOUT_GROUP,
      types: ['task.status-changed', 'analyze-task.status-changed'],
      handler: webhookFanout({ db, store, clock, logger, planned: () => dispatcher?.wake() }),
    },
    jobs: [sealing, ...(dispatcher ? [{ name: 'webhook-dispatcher', start: () => (dispatcher.start(), dispatcher) }] : [])],
  };
}

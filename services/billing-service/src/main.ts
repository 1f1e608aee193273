import { JOBS_MIGRATIONS } from '@vus/jobs';
import { connectRedis, Meter, redisLimiters, UsageCounters } from '@vus/limits';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { createBillingService, monthEndJob } from './billing';
import { createUsageBudgets } from './budgets';
import { billingEnvShape, billingOptionsFromEnv, type BillingServiceOptions } from './env';
import { createMailTransport, Mailer } from './mailer';
import { billingServiceImplementation } from './server';
import { createBillingStore, createReservationStore } from './store';
import { usageMetering } from './usage';

export type { BillingServiceOptions } from './env';
export type { MailTarget } from './mailer';

/** Plans, the Developer tier state machine, the spend ledger, month-end and plan e-mails. */
export const billingService = defineService({
  name: 'billing-service',
  migrations: join(__dirname, '..', 'migrations'),
  // The mailer sends the e-mail outbox as jobs of the job queue.
  libraryMigrations: [JOBS_MIGRATIONS],
  // Usage (`usage.recorded`) comes from the bus; the RecordSpend RPC stays for operators.
  consumes: true,
  env: billingEnvShape,
  fromEnv: billingOptionsFromEnv,
  async build({ db, clock, logger, onStop }, options: BillingServiceOptions) {
    const mailer = new Mailer({ db, clock, send: createMailTransport(options.mail), logger, pollMs: options.mailPollMs });
    const billing = createBillingService({
      store: createBillingStore(db),
      clock,
      prices: options.prices,
      tierLimits: options.tierLimits,
      mailQueued: () => mailer.wake(),
    });
    const redis = !options.limiters && options.redisUrl ? connectRedis(options.redisUrl, logger) : undefined;
    if (redis) onStop(() => (redis.isReady ? redis.close() : redis.destroy()));
    const limiters = options.limiters ?? (redis && redisLimiters(redis));
    if (!limiters) logger.warn('no REDIS_URL: usage is not debited from the rate-limit budgets (minutes, tokens)');
    const meter = limiters && new Meter(new UsageCounters(limiters), billing);
    const budgets = createUsageBudgets({ meter, reservations: createReservationStore(db), now: () => clock.now() });
    return {
      implementation: billingServiceImplementation(billing, budgets, logger),
      consumers: [usageMetering(db, billing, budgets, logger)],
      withoutBus: 'no event bus: usage waits in its producers’ outboxes until one is configured',
      jobs: [{ name: 'mailer', start: () => (mailer.start(), mailer) }, monthEndJob(billing, clock, logger, options.monthEndCheckMs)],
    };
  },
});

export type RunningBillingService = RunningService;
export const startBillingService = (options: KitOptions & BillingServiceOptions): Promise<RunningBillingService> =>
  startService(billingService, options);

if (require.main === module) runService(billingService);

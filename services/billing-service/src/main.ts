import { JOBS_MIGRATIONS } from '@vus/jobs';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { createBillingService, monthEndJob } from './billing';
import { billingEnvShape, billingOptionsFromEnv, type BillingServiceOptions } from './env';
import { createMailTransport, Mailer } from './mailer';
import { billingServiceImplementation } from './server';
import { createBillingStore } from './store';
import { usageMetering } from './usage';

export type { BillingServiceOptions } from './env';
export type { MailTarget } from './mailer';

/** Plans, the Developer tier state machine, the spend ledger, month-end and plan e-mails. */
export const billingService = defineService({
  name: 'billing-service',
  migrations: join(__dirname, '..', 'migrations'),
  // The mailer sends the e-mail outbox as jobs of the job queue.
  libraryMigrations: [JOBS_MIGRATIONS],
  // Usage (`usage.recorded`) comes from the bus; the RecordSpend RPC stays for operators and callers without one.
  consumes: true,
  env: billingEnvShape,
  fromEnv: billingOptionsFromEnv,
  async build({ db, clock, logger }, options: BillingServiceOptions) {
    const mailer = new Mailer({ db, clock, send: createMailTransport(options.mail), logger, pollMs: options.mailPollMs });
    const billing = createBillingService({
      store: createBillingStore(db),
      clock,
      prices: options.prices,
      tierLimits: options.tierLimits,
      mailQueued: () => mailer.wake(),
    });
    return {
      implementation: billingServiceImplementation(billing, logger),
      consumers: [usageMetering(db, billing)],
      withoutBus: 'no event bus: usage is metered only through the RecordSpend RPC',
      jobs: [{ name: 'mailer', start: () => (mailer.start(), mailer) }, monthEndJob(billing, clock, logger, options.monthEndCheckMs)],
    };
  },
});

export type RunningBillingService = RunningService;
export const startBillingService = (options: KitOptions & BillingServiceOptions): Promise<RunningBillingService> =>
  startService(billingService, options);

if (require.main === module) runService(billingService);

import { JOBS_MIGRATIONS } from '@vus/jobs';
import type { LimitTable } from '@vus/limits';
import { defineService, intervalJob, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { createBillingService, type PriceList } from './billing';
import { billingEnvShape, mailTargetFromEnv, tierLimitsFromEnv } from './env';
import { createMailTransport, Mailer, type MailTarget } from './mailer';
import { billingServiceImplementation } from './server';
import { createBillingStore } from './store';
import { usageMetering } from './usage';

export type { MailTarget } from './mailer';

export interface BillingServiceOptions {
  mail: MailTarget;
  prices?: PriceList;
  /** Developer tier limits; a tier that is absent has the Free plan's (SPEC §8). */
  tierLimits?: Readonly<Record<number, LimitTable>> | undefined;
  /** How often the month-end job looks for a month to close (it catches up on start). */
  monthEndCheckMs?: number;
  mailPollMs?: number;
}

/** Plans, the Developer tier state machine, the spend ledger, month-end and plan e-mails. */
export const billingService = defineService({
  name: 'billing-service',
  migrations: join(__dirname, '..', 'migrations'),
  // The mailer sends the e-mail outbox as jobs of the job queue.
  libraryMigrations: [JOBS_MIGRATIONS],
  // Usage (`usage.recorded`) comes from the bus; the RecordSpend RPC stays for operators and callers without one.
  consumes: true,
  env: billingEnvShape,
  fromEnv: (config): BillingServiceOptions => ({ mail: mailTargetFromEnv(config), tierLimits: tierLimitsFromEnv(config) }),
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
      jobs: [
        { name: 'mailer', start: () => (mailer.start(), mailer) },
        // Idempotent, so every replica may run it; it closes whatever month boundary has passed.
        intervalJob({
          name: 'month-end',
          everyMs: options.monthEndCheckMs ?? 60_000,
          runAtStart: true,
          logger,
          run: () => billing.runMonthEnd(clock.now()),
        }),
      ],
    };
  },
});

export type RunningBillingService = RunningService;
export const startBillingService = (options: KitOptions & BillingServiceOptions): Promise<RunningBillingService> =>
  startService(billingService, options);

if (require.main === module) runService(billingService);

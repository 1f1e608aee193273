import { createLogger, envBoolean, loadConfig, logLevel, runMain, systemClock, type Clock, type Logger } from '@vus/core';
import { Database, migrate, type DatabaseTarget } from '@vus/db';
import { BILLING_SERVICE_NAME, loadProto, startGrpcServer, watchReadiness } from '@vus/grpc';
import { join } from 'node:path';
import { z } from 'zod';
import { CATEGORIES, DIMENSIONS, type LimitTable } from '@vus/limits';
import { createBillingService, type PriceList } from './billing';
import { createMailTransport, Mailer, type MailTarget } from './mailer';
import { billingServiceImplementation } from './server';

export const MIGRATIONS = { dir: join(__dirname, '..', 'migrations'), table: 'pgmigrations' };
export type { MailTarget } from './mailer';

export interface BillingServiceOptions {
  /** host:port to listen on; port 0 picks a free one. */
  bind: string;
  database: DatabaseTarget;
  logger: Logger;
  mail: MailTarget;
  clock?: Clock;
  prices?: PriceList;
  /** Developer tier limits; a tier that is absent has the Free plan's (SPEC §8). */
  tierLimits?: Readonly<Record<number, LimitTable>>;
  migrateOnStart?: boolean;
  /** How often the month-end job looks for a month to close (it catches up on start). */
  monthEndCheckMs?: number;
  mailPollMs?: number;
}

export interface RunningBillingService {
  address: string;
  stop(): Promise<void>;
}

export async function startBillingService(options: BillingServiceOptions): Promise<RunningBillingService> {
  const { logger, clock = systemClock } = options;
  const db = await Database.open(options.database);
  if (options.migrateOnStart ?? true) await migrate(db, MIGRATIONS);

  const mailer = new Mailer({ db, clock, send: createMailTransport(options.mail), logger, pollMs: options.mailPollMs });
  const billing = createBillingService({ db, clock, prices: options.prices, tierLimits: options.tierLimits, mailQueued: () => mailer.wake() });
  const server = await startGrpcServer({
    bind: options.bind,
    logger,
    services: [
      { name: BILLING_SERVICE_NAME, definition: loadProto().proto.vus.billing.v1.BillingService.service, implementation: billingServiceImplementation(billing, logger) },
    ],
  });
  const stopWatching = watchReadiness(server, () => db.ping());
  mailer.start();

  // Idempotent, so every replica may run it; it closes whatever month boundary has passed.
  let monthEnd: Promise<unknown> = Promise.resolve();
  const closeMonths = () => {
    monthEnd = billing.runMonthEnd(clock.now()).catch((error: unknown) => logger.error({ err: error }, 'month-end job failed'));
  };
  closeMonths();
  const monthEndTimer = setInterval(closeMonths, options.monthEndCheckMs ?? 60_000);
  monthEndTimer.unref();

  return {
    address: server.address,
    async stop() {
      clearInterval(monthEndTimer);
      stopWatching();
      await server.stop();
      await monthEnd;
      await mailer.stop();
      await db.close();
    },
  };
}

const limitTable = z.array(z.object({ category: z.enum(CATEGORIES), dimension: z.enum(DIMENSIONS), limit: z.number().int().min(0) }));
/** `{"2": [{"category":"search","dimension":"RPM","limit":1200}], "3": [...]}`: a tier's whole table. */
const tierLimitsJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.enum(['1', '2', '3']), limitTable));

const configSchema = z.object({
  TIER_LIMITS: tierLimitsJson.optional(),
  GRPC_BIND: z.string().default('0.0.0.0:50058'),
  DATABASE_URL: z.string().url(),
  MIGRATE_ON_START: envBoolean.default(true),
  /** smtp://user:pass@host:587; without it e-mails are written as .eml files to MAIL_DIR. */
  SMTP_URL: z.string().url().optional(),
  MAIL_DIR: z.string().default('./mail'),
  MAIL_FROM: z.string().default('VUS billing <billing@localhost>'),
  LOG_LEVEL: logLevel,
});

/** Cluster mode: one process, configured from the environment (the Helm chart's form). */
if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(configSchema);
    return startBillingService({
      bind: config.GRPC_BIND,
      database: { kind: 'postgres', url: config.DATABASE_URL },
      logger: createLogger({ service: 'billing-service', level: config.LOG_LEVEL }),
      mail: config.SMTP_URL ? { kind: 'smtp', url: config.SMTP_URL, from: config.MAIL_FROM } : { kind: 'folder', dir: config.MAIL_DIR, from: config.MAIL_FROM },
      migrateOnStart: config.MIGRATE_ON_START,
      tierLimits: config.TIER_LIMITS ? Object.fromEntries(Object.entries(config.TIER_LIMITS).map(([tier, table]) => [Number(tier), table])) : undefined,
    });
  });
}

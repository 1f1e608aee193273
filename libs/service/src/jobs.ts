import type { Clock, Logger, Stoppable } from '@vus/core';
import { maintainTables, type Database } from '@vus/db';
import { z } from 'zod';

/** Work a service runs beside its RPCs; started after the server, stopped before it. */
export interface BackgroundJob {
  readonly name: string;
  start(): Stoppable | Promise<Stoppable>;
}

/**
 * A job that runs `run` now and then every `everyMs` (one round at a time; a failed round is
 * logged and the next one comes on time). Stopping waits for the round in flight.
 */
export function intervalJob(options: {
  name: string;
  everyMs: number;
  runAtStart?: boolean;
  logger: Logger;
  run: () => Promise<unknown>;
}): BackgroundJob {
  return {
    name: options.name,
    start() {
      let round: Promise<unknown> = Promise.resolve();
      let running = false;
      const tick = () => {
        if (running) return;
        running = true;
        round = options
          .run()
          .catch((error: unknown) => options.logger.error({ err: error, job: options.name }, 'background job failed'))
          .finally(() => {
            running = false;
          });
      };
      if (options.runAtStart) tick();
      const timer = setInterval(tick, options.everyMs);
      timer.unref();
      return {
        async stop() {
          clearInterval(timer);
          await round;
        },
      };
    },
  };
}

/** How often an embedded database's tables are looked at: autovacuum_naptime's default. */
export const TABLE_MAINTENANCE_EVERY_MS = 60_000;

/**
 * Autovacuum's work on an embedded (PGlite) database, which has no autovacuum of its own
 * (libs/db maintainTables); none on PostgreSQL, whose autovacuum does it. A round that ran
 * something logs what and how long: the engine served nothing else meanwhile.
 */
export function tableMaintenanceJobs(db: Database, logger: Logger, everyMs = TABLE_MAINTENANCE_EVERY_MS): BackgroundJob[] {
  if (db.target.kind !== 'pglite') return [];
  return [
    intervalJob({
      name: 'table-maintenance',
      everyMs,
      // At start too: PGlite forgets its counters on a restart, and what was loaded before it is analysed now.
      runAtStart: true,
      logger,
      run: async () => {
        const ran = await maintainTables(db);
        if (ran.length > 0)
          logger.info({ ran }, `embedded database maintenance: ${ran.map((r) => `${r.statement} (${r.ms} ms)`).join(', ')}`);
      },
    }),
  ];
}

/**
 * How long a result set's pages stay readable, in seconds (SEARCH_PAGE_TTL_SECONDS,
 * CLASSIFY_PAGE_TTL_SECONDS): a minute to a week, an hour by default (the real API's).
 */
export const resultSetTtlSecondsEnv = z.coerce
  .number()
  .int()
  .min(60)
  .max(7 * 24 * 3600)
  .default(3600);

/** Expired result sets are kept a day, so that an old token reads "expired" rather than "unknown". */
const EXPIRED_RESULT_SETS_KEPT_MS = 86_400_000;

/**
 * The background job that deletes result sets (search's and classify's pages) a day past their
 * expiry, every ten minutes.
 */
export function purgeResultSetsJob(
  store: { purgeResultSets(expiredBefore: Date): Promise<unknown> },
  clock: Clock,
  logger: Logger,
): BackgroundJob {
  return intervalJob({
    name: 'purge-result-sets',
    everyMs: 600_000,
    logger,
    run: () => store.purgeResultSets(new Date(clock.now().getTime() - EXPIRED_RESULT_SETS_KEPT_MS)),
  });
}

import type { Logger, Stoppable } from '@vus/core';

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

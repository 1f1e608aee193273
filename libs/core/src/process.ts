import { ConfigError } from './config';

export interface Stoppable {
  stop(): Promise<void>;
}

const exitHooks: (() => Promise<unknown>)[] = [];

/** Work for after the service stopped and before the process exits (flushing telemetry), in order. */
export function beforeProcessExit(hook: () => Promise<unknown>): void {
  exitHooks.push(hook);
}

async function runExitHooks(): Promise<void> {
  for (const hook of exitHooks.splice(0)) await hook().catch(() => undefined);
}

/**
 * Runs a service's main: starts it, stops it cleanly on SIGINT/SIGTERM, and exits non-zero with a
 * readable message when configuration is invalid or start-up fails.
 */
export function runMain(start: () => Promise<Stoppable>): void {
  // Listened for from the start: a Ctrl-C while the service is still starting (probes, reports)
  // stops it once it has started, instead of killing it half-way with the signal's default action.
  let requested: string | undefined;
  let onSignal = (signal: string): void => void (requested ??= signal);
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  start().then(
    (running) => {
      // A service lives until it is told to stop, not only while a socket or a timer of its own
      // happens to be open (background loops unref their timers; a worker between jobs holds none).
      const alive = setInterval(() => undefined, 1 << 30);
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        clearInterval(alive);
        process.stderr.write(`${signal} received, shutting down\n`);
        running
          .stop()
          .then(runExitHooks)
          .then(
            () => process.exit(0),
            (error: unknown) => {
              process.stderr.write(`shutdown failed: ${String(error)}\n`);
              process.exit(1);
            },
          );
      };
      onSignal = shutdown;
      if (requested) shutdown(requested);
    },
    (error: unknown) => {
      process.stderr.write(
        error instanceof ConfigError ? `${error.message}\n` : `start-up failed: ${(error as Error)?.stack ?? String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

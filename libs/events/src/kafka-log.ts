import type { Logger } from '@vus/core';
import { logLevel as KafkaLogLevel, type LogEntry } from 'kafkajs';

/**
 * kafkajs's warnings and errors, made readable during an outage: kafkajs repeats each failure on
 * every retry of every producer, consumer and connection (about 945 lines a minute per service
 * against a dead broker). Here each kind of failure (its namespace and message, numbers aside) is
 * logged once per outage, the repeats are counted and summarised every `summaryMs`, and a window
 * without any says the client is quiet again, which ends the outage.
 */
export interface KafkaLogSink {
  /** kafkajs's log function (logCreator's product). */
  write(entry: LogEntry): void;
  /** Writes the summary of the window that ends now; the bus calls it on a timer. */
  flush(): void;
}

/** A failure's kind: numbers (ports, ids, counts, durations) vary between repeats of one failure. */
export function kindOf(entry: Pick<LogEntry, 'namespace' | 'log'>): string {
  return `${entry.namespace} ${String(entry.log.message).replace(/\d+/g, '#')}`;
}

export function kafkaLogSink(logger: Logger): KafkaLogSink {
  /** Kinds seen in the current outage (undefined: none going on). */
  let seen: Set<string> | undefined;
  /** Repeats since the last summary, by kind. */
  let repeats = new Map<string, number>();
  let lines = 0;
  return {
    write(entry) {
      const kind = kindOf(entry);
      lines++;
      seen ??= new Set();
      if (seen.has(kind)) {
        repeats.set(kind, (repeats.get(kind) ?? 0) + 1);
        return;
      }
      seen.add(kind);
      const { message, ...extra } = entry.log;
      const fields = { ...extra, kafkaNamespace: entry.namespace };
      const text = `kafka: ${message} (repeats are summarised)`;
      if (entry.level <= KafkaLogLevel.ERROR) logger.error(fields, text);
      else logger.warn(fields, text);
    },
    flush() {
      if (!seen) return;
      if (lines === 0) {
        logger.info('kafka: no warnings or errors since the last summary; the client is quiet again');
        seen = undefined;
        return;
      }
      const repeated = [...repeats].sort((a, b) => b[1] - a[1]);
      if (repeated.length > 0) {
        const total = repeated.reduce((sum, [, count]) => sum + count, 0);
        logger.warn(
          { repeats: Object.fromEntries(repeated.slice(0, 5)), kinds: repeated.length },
          `kafka: ${total} repeated warnings and errors`,
        );
      }
      repeats = new Map();
      lines = 0;
    },
  };
}

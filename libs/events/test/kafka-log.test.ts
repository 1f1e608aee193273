import type { Logger } from '@vus/core';
import { logLevel, type LogEntry } from 'kafkajs';
import { kafkaLogSink, kindOf } from '../src/kafka-log';

/** A logger that keeps `level: message` of each line. */
function recordingLogger() {
  const lines: string[] = [];
  const line = (level: string) => (fieldsOrMessage: unknown, message?: string) =>
    lines.push(`${level}: ${typeof fieldsOrMessage === 'string' ? fieldsOrMessage : message}`);
  return { logger: { error: line('error'), warn: line('warn'), info: line('info') } as unknown as Logger, lines };
}

const entry = (namespace: string, message: string, level = logLevel.ERROR): LogEntry => ({
  namespace,
  level,
  label: 'ERROR',
  log: { timestamp: '', logger: 'kafkajs', message },
});
const refused = (port: number) => entry('Connection', `Connection error: connect ECONNREFUSED 127.0.0.1:${port}`);

describe('kindOf', () => {
  it.each([
    [refused(9092), refused(19092), true],
    [entry('Connection', 'Connection timeout'), entry('BrokerPool', 'Connection timeout'), false],
    [entry('Consumer', 'Restarting the consumer in 1200ms'), entry('Consumer', 'Restarting the consumer in 300ms'), true],
  ])('tells repeats of one failure from different failures', (a, b, same) => {
    expect(kindOf(a) === kindOf(b)).toBe(same);
  });
});

describe('kafkaLogSink', () => {
  it('logs each kind of failure once per outage, summarises the repeats, and says when it is quiet again', () => {
    const { logger, lines } = recordingLogger();
    const sink = kafkaLogSink(logger);
    // A minute of outage: a connection refused 300 times, the consumer restarting 20 times.
    for (let i = 0; i < 300; i++) sink.write(refused(9092));
    for (let i = 0; i < 20; i++) sink.write(entry('Consumer', `Restarting the consumer in ${100 * i}ms`, logLevel.WARN));
    sink.flush();
    // Another minute of the same.
    for (let i = 0; i < 300; i++) sink.write(refused(9092));
    sink.flush();
    // The broker is back: a quiet minute, then a quiet one more.
    sink.flush();
    sink.flush();
    // A new outage is news again.
    sink.write(refused(9092));
    expect(lines).toEqual([
      'error: kafka: Connection error: connect ECONNREFUSED 127.0.0.1:9092 (repeats are summarised)',
      'warn: kafka: Restarting the consumer in 0ms (repeats are summarised)',
      'warn: kafka: 318 repeated warnings and errors',
      'warn: kafka: 300 repeated warnings and errors',
      'info: kafka: no warnings or errors since the last summary; the client is quiet again',
      'error: kafka: Connection error: connect ECONNREFUSED 127.0.0.1:9092 (repeats are summarised)',
    ]);
  });

  it('writes nothing on a summary when nothing went wrong', () => {
    const { logger, lines } = recordingLogger();
    const sink = kafkaLogSink(logger);
    sink.flush();
    sink.flush();
    expect(lines).toEqual([]);
  });
});

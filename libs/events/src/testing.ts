import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { ensureKafkaTopics } from './kafka';
import { allTopics } from './topics';

/** A Kafka broker for one test suite. */
export interface TestKafka {
  brokers: string[];
  /** Present only on the mock broker: drops and restores the broker's connections (data kept). */
  outage?: { down(): Promise<void>; up(): Promise<void> };
  /**
   * Present only on the mock broker: the next request of a Kafka API (by API key, e.g. 14 for
   * SyncGroup) is answered with this Kafka error code (e.g. 42, INVALID_REQUEST).
   */
  failNextRequest?(apiKey: number, errorCode: number): Promise<void>;
  stop(): Promise<void>;
}

/** scripts/kafka-mock/run, from src/ or dist/ alike. */
const MOCK_LAUNCHER = join(__dirname, '..', '..', '..', 'scripts', 'kafka-mock', 'run');

/**
 * The broker a test suite uses. Tests pass `process.env.KAFKA_BROKERS`: `host:port[,host:port]`
 * names a real broker (its topics are created if missing); unset, librdkafka's mock cluster (built
 * from the npm package @confluentinc/kafka-javascript's source, see scripts/kafka-mock) is started
 * for this suite with the project's topics pre-created, and stopped by `stop()`.
 */
export async function startTestKafka(kafkaBrokers: string | undefined): Promise<TestKafka> {
  const configured = kafkaBrokers
    ?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (configured?.length) {
    await ensureKafkaTopics(configured);
    return { brokers: configured, stop: async () => undefined };
  }
  return startMockKafka();
}

async function startMockKafka(): Promise<TestKafka> {
  const child = spawn(
    MOCK_LAUNCHER,
    allTopics().map((t) => `${t.name}:${t.partitions}`),
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = () =>
    Promise.race([
      new Promise<string>((resolve) => waiting.push(resolve)),
      exited.then((code) => {
        throw new Error(`kafka mock exited (${code}): ${stderr.trim() || 'no output'}`);
      }),
    ]);
  const command = async (name: string) => {
    child.stdin.write(`${name}\n`);
    const answer = await nextLine();
    if (answer !== `OK ${name}`) throw new Error(`kafka mock: ${answer}`);
  };

  const first = await nextLine();
  const match = /^BOOTSTRAP (\S+)$/.exec(first);
  if (!match) throw new Error(`kafka mock: unexpected output ${first}`);
  return {
    brokers: match[1]!.split(','),
    outage: { down: () => command('down'), up: () => command('up') },
    failNextRequest: (apiKey, errorCode) => command(`fail ${apiKey} ${errorCode}`),
    async stop() {
      if (child.exitCode !== null) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

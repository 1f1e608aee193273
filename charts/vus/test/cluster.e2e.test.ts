/*
 * Cluster mode exactly as the README's section says (issue 34): every process of it started as a
 * child process with the command the README gives it (`node services/<name>/dist/main.js`, the
 * worker's own), its environment made only of variables the README names for that process (read
 * from the README here, so the test follows the text), on real PostgreSQL (a throwaway database
 * each), Redis and the Kafka test broker — with two gateways, as two replicas behind a load
 * balancer. Task-service runs with WORKER_ENABLED=false and the indexing worker beside it, as
 * compose runs them: ten processes.
 *
 * The round trip: an upload through gateway 1 is indexed by the worker; gateway 2 finds it by what
 * it shows, analyzes it, classifies it and embeds text; the webhook registered through gateway 2
 * is delivered, signed, to a receiver here; the stream URL gateway 1 signed is served by gateway 2
 * (URL_SIGNING_SECRET shared). A failure message carries the tail of every process's log.
 */
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { startTestKafka, type TestKafka } from '@vus/events/testing';
import { checkHealth, SERVICE_REGISTRY, type ServiceEntry } from '@vus/grpc';
import { waitFor, wordsAndSubtitlesVideo, type GeneratedVideo } from '@vus/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { commandOf, readmeClusterSection, ROOT, variablesOf, WORKER } from './readme-cluster';

const README = readmeClusterSection();
/** The README's processes, the gateway twice (two replicas). */
const GATEWAYS = ['gateway 1', 'gateway 2'] as const;
const SERVICES = (SERVICE_REGISTRY as readonly ServiceEntry[]).filter((entry) => entry.protoService).map((entry) => entry.name);
const PROCESSES = [...SERVICES, WORKER, ...GATEWAYS];
/** A process's README entry: the gateways are both `gateway`. */
const entryOf = (name: string) => (name.startsWith('gateway') ? 'gateway' : name);
/** Log lines kept per process for a failure message. */
const LOG_TAIL_LINES = 25;

interface Running {
  name: string;
  child: ChildProcess;
  lines: string[];
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let work: string;
let kafka: TestKafka;
let receiver: Server;
const received: Received[] = [];
const databases = new Map<string, ThrowawayDatabase>();
const ports = new Map<string, number>();
const processes: Running[] = [];
const secrets = {
  internal: randomBytes(24).toString('hex'),
  urlSigning: randomBytes(24).toString('hex'),
  admin: randomBytes(24).toString('hex'),
  webhookKey: randomBytes(32).toString('base64'),
};

/** Free loopback ports, held together so that they differ, then released for the processes to bind. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const found = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return found;
}

const address = (name: string) => `127.0.0.1:${ports.get(name)!}`;
const gatewayUrl = (name: (typeof GATEWAYS)[number]) => `http://${address(name)}`;

/**
 * What this deployment gives each variable, by process: undefined leaves it at its default. A process
 * gets only the variables the README names for it.
 */
const VALUES: Record<string, (name: string) => string | undefined> = {
  INTERNAL_GRPC_SECRET: () => secrets.internal,
  // The worker works on task-service's database; the gateways share theirs.
  DATABASE_URL: (name) => databases.get(name === WORKER ? 'task-service' : entryOf(name))!.url,
  LOG_LEVEL: () => 'info',
  KAFKA_BROKERS: () => kafka.brokers.join(','),
  GRPC_BIND: (name) => address(name),
  PORT: (name) => String(ports.get(name)),
  BLOB_DIR: () => path.join(work, 'blobs'),
  WORK_DIR: () => path.join(work, 'indexing'),
  // An empty models folder: the bundled models only, whatever a developer has pulled into ./models.
  MODELS_DIR: () => path.join(work, 'models'),
  MAIL_DIR: () => path.join(work, 'mail'),
  REDIS_URL: () => process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  // Indexing in the worker process beside it, as compose and the chart's scaled profile run it.
  WORKER_ENABLED: (name) => (name === 'task-service' ? 'false' : undefined),
  WEBHOOK_SECRET_KEY: () => secrets.webhookKey,
  WEBHOOK_ALLOWED_HOSTS: () => 'localhost',
  URL_SIGNING_SECRET: () => secrets.urlSigning,
  VUS_ADMIN_TOKEN: () => secrets.admin,
  // Each service's peers, at the addresses they listen on.
  ...Object.fromEntries(SERVICE_REGISTRY.map((peer) => [`${peer.envPrefix}_ADDR`, () => address(peer.name)])),
};

/** A process's environment: PATH, and each variable the README names for it that this deployment sets. */
function environmentOf(name: string): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  for (const variable of variablesOf(README, entryOf(name))) {
    const value = VALUES[variable]?.(name);
    if (value !== undefined) env[variable] = value;
  }
  return env;
}

// A suite that dies before its afterAll must not leave the deployment running.
process.once('exit', () => {
  for (const { child } of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function start(name: string): Running {
  const [node, main, ...args] = commandOf(README, entryOf(name));
  expect(node).toBe('node');
  if (!existsSync(path.join(ROOT, main!))) throw new Error(`${main} is missing: build first (npm run build)`);
  const child = spawn(process.execPath, [main!, ...args], { cwd: ROOT, env: environmentOf(name), stdio: ['ignore', 'pipe', 'pipe'] });
  const running: Running = { name, child, lines: [] };
  const keep = (chunk: Buffer) => {
    running.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    running.lines.splice(0, Math.max(0, running.lines.length - 400));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  processes.push(running);
  return running;
}

/** The tail of every process's log, and how each ended if it did. */
function logs(): string {
  return processes
    .map(({ name, child, lines }) => {
      const ended = child.exitCode !== null || child.signalCode !== null ? ` (exited: ${child.exitCode ?? child.signalCode})` : '';
      return `--- ${name}${ended}\n${lines.slice(-LOG_TAIL_LINES).join('\n')}`;
    })
    .join('\n');
}

/** Runs a step; a failure carries the processes' logs. */
async function step<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${what}: ${message}\n\nProcess logs (last ${LOG_TAIL_LINES} lines each):\n${logs()}`, { cause: error });
  }
}

interface Answer {
  status: number;
  body: any;
}

async function call(
  base: string,
  method: string,
  route: string,
  init: { key?: string; json?: unknown; form?: FormData } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.key) headers['x-api-key'] = init.key;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${route}`, {
    method,
    headers,
    body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a playlist, say): the text.
  }
  return { status: response.status, body };
}

/** Fails with the answer when its status is not the one expected. */
function expectStatus(answer: Answer, status: number): any {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'vus-cluster-'));
  for (const dir of ['blobs', 'indexing', 'models', 'mail']) mkdirSync(path.join(work, dir));
  const portList = await freePorts(PROCESSES.length);
  PROCESSES.forEach((name, i) => ports.set(name, portList[i]!));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  kafka = await startTestKafka(process.env.KAFKA_BROKERS);
  for (const name of [...SERVICES, 'gateway']) databases.set(name, await createThrowawayDatabase('vus_cluster'));
  for (const name of PROCESSES) start(name);
  await step('waiting for the deployment to be ready', async () => {
    for (const gateway of GATEWAYS) {
      let last: Answer | undefined;
      await waitFor(
        async () => {
          last = await call(gatewayUrl(gateway), 'GET', '/readyz').catch(() => undefined);
          return last?.status === 200;
        },
        `${gateway}'s /readyz`,
        90_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; last answer: ${JSON.stringify(last?.body)}`);
      });
    }
    await waitFor(() => checkHealth(address(WORKER), ''), "the worker's health server", 30_000);
  });
}, 180_000);

afterAll(async () => {
  await Promise.all(
    processes.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  await new Promise((resolve) => receiver?.close(resolve));
  await kafka?.stop();
  for (const database of databases.values()) await database.drop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('the README names what each process is given', () => {
  it('names each variable this deployment sets for some process (one it stops naming would be left out)', () => {
    const given = new Set(PROCESSES.flatMap((name) => Object.keys(environmentOf(name))));
    // GATEWAY_ADDR: the registry's prefix of the gateway, which no process calls.
    expect(Object.keys(VALUES).filter((variable) => !given.has(variable) && variable !== 'GATEWAY_ADDR')).toEqual([]);
  });
});

describe('upload → search → analyze → webhook, through two gateways', () => {
  let video: GeneratedVideo;
  let key: string;
  let indexId: string;
  let taskId: string;
  let videoId: string;
  let signingSecret: string;
  let streamUrl: string;
  // Set once the ports are (the suite's beforeAll runs first).
  let one: string;
  let two: string;

  beforeAll(async () => {
    [one, two] = GATEWAYS.map(gatewayUrl) as [string, string];
    video = await wordsAndSubtitlesVideo();
    await step('an organization and its key, through gateway 1', async () => {
      const admin = { 'content-type': 'application/json', authorization: `Bearer ${secrets.admin}` };
      const org = await fetch(`${one}/admin/organizations`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'cluster' }) });
      const orgId = expectStatus({ status: org.status, body: await org.json() }, 201)._id as string;
      const created = await fetch(`${one}/admin/organizations/${orgId}/keys`, { method: 'POST', headers: admin, body: '{}' });
      key = expectStatus({ status: created.status, body: await created.json() }, 201).key as string;
    });
    await step('a webhook, through gateway 2', async () => {
      const url = `http://localhost:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await call(two, 'POST', '/v1.3/webhooks', { key, json: { url, event_types: ['index.task.ready'] } });
      signingSecret = expectStatus(hook, 201).signing_secret as string;
    });
    await step('an index and an upload, through gateway 1, indexed by the worker', async () => {
      const index = await call(one, 'POST', '/v1.3/indexes', {
        key,
        json: {
          index_name: 'cluster',
          models: [
            { model_name: 'marengo3.0', model_options: ['visual', 'audio'] },
            { model_name: 'pegasus1.2', model_options: ['visual', 'audio'] },
          ],
        },
      });
      indexId = expectStatus(index, 201)._id as string;
      const form = new FormData();
      form.set('index_id', indexId);
      form.set('video_file', new Blob([readFileSync(video.path)]), path.basename(video.path));
      const task = expectStatus(await call(one, 'POST', '/v1.3/tasks', { key, form }), 200);
      taskId = task._id as string;
      let last: any;
      await waitFor(
        async () => {
          last = expectStatus(await call(one, 'GET', `/v1.3/tasks/${taskId}`, { key }), 200);
          return last.status === 'ready' || last.status === 'failed';
        },
        'the task to settle',
        120_000,
      );
      expect(last).toMatchObject({ status: 'ready', video_id: expect.any(String) });
      videoId = last.video_id as string;
      streamUrl = last.hls?.video_url as string;
    });
  }, 180_000);

  it('gateway 2 finds the video by a word it shows, at its moment', async () => {
    await step('search through gateway 2', async () => {
      const form = new FormData();
      form.set('index_id', indexId);
      form.set('search_options', 'visual');
      form.set('query_text', 'bicycle');
      const found = expectStatus(await call(two, 'POST', '/v1.3/search', { key, form }), 200);
      // BICYCLE is on screen from 8 s to 12 s (wordsAndSubtitlesVideo).
      expect(found.data[0]).toMatchObject({ video_id: videoId });
      expect(Math.abs(found.data[0].start - 8)).toBeLessThanOrEqual(1);
      expect(Math.abs(found.data[0].end - 12)).toBeLessThanOrEqual(1);
    });
  });

  it('gateway 2 analyzes the video from its evidence', async () => {
    await step('analyze through gateway 2', async () => {
      const answer = expectStatus(
        await call(two, 'POST', '/v1.3/analyze', {
          key,
          json: { video_id: videoId, prompt: 'When is the word bicycle shown?', stream: false },
        }),
        200,
      );
      expect(answer.data).toMatch(/BICYCLE/);
      expect(answer.usage.output_tokens).toBeGreaterThan(0);
    });
  });

  it('gateway 2 classifies the video and embeds text (classify- and embed-service are wired)', async () => {
    await step('classify and embed through gateway 2', async () => {
      const classes = [
        { name: 'Outdoors', prompts: ['bicycle', 'garden'] },
        { name: 'Pets', prompts: ['kitten'] },
      ];
      const classified = expectStatus(
        await call(two, 'POST', '/v1.2/classify', { key, json: { video_ids: [videoId], classes, options: ['visual', 'text_in_video'] } }),
        200,
      );
      expect(classified).toMatchObject({ data: [{ video_id: videoId, classes: [expect.objectContaining({ name: 'Outdoors' })] }] });
      const embedded = expectStatus(
        await call(two, 'POST', '/v1.3/embed-v2', {
          key,
          json: { input_type: 'text', model_name: 'marengo3.0', text: { input_text: 'a bicycle' } },
        }),
        200,
      );
      expect(embedded.data[0].embedding).toHaveLength(512);
    });
  });

  it('the webhook registered through gateway 2 is delivered once, signed as the README says', async () => {
    await step('the webhook delivery', async () => {
      await waitFor(() => received.length > 0, 'the index.task.ready delivery', 30_000);
      const [delivery] = received;
      const header = (name: string) => String(delivery!.headers[name.toLowerCase()]);
      expect(header('VUS-Webhook-Event')).toBe('index.task.ready');
      // The README's receiver: v1= + hex HMAC-SHA256(secret, `<timestamp>.<raw body>`).
      const expected = `v1=${createHmac('sha256', signingSecret)
        .update(`${header('VUS-Webhook-Timestamp')}.${delivery!.body}`)
        .digest('hex')}`;
      expect(header('VUS-Webhook-Signature')).toBe(expected);
      expect(JSON.parse(delivery!.body)).toMatchObject({
        type: 'index.task.ready',
        data: { task_id: taskId, index_id: indexId, video_id: videoId, status: 'ready' },
      });
      expect(new Set(received.map((r) => r.headers['vus-webhook-id'])).size).toBe(1);
    });
  });

  it('gateway 2 serves the stream URL gateway 1 signed, and refuses one with a wrong signature', async () => {
    await step('the stream through gateway 2', async () => {
      expect(streamUrl).toMatch(new RegExp(`^${one}/hls/[^/]+/index\\.m3u8$`));
      const onTwo = streamUrl.replace(one, two);
      const playlist = await fetch(onTwo);
      expect([playlist.status, playlist.headers.get('content-type')]).toEqual([200, 'application/vnd.apple.mpegurl']);
      const segment = /^[^#\s].*$/m.exec(await playlist.text())![0];
      const ts = await fetch(new URL(segment, onTwo));
      expect([ts.status, ts.headers.get('content-type')]).toEqual([200, 'video/mp2t']);
      const token = new URL(onTwo).pathname.split('/')[2]!;
      const tampered = onTwo.replace(token, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'));
      expect((await fetch(tampered)).status).toBe(403);
    });
  });
});

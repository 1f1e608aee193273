/*
 * `npm start` traces from the standard OpenTelemetry variables alone (issue 34): with
 * OTEL_TRACES_EXPORTER=console and no NODE_OPTIONS, a request to the built embedded server prints
 * its spans: the gateway's route span and the service's gRPC span, named for the embedded process
 * unless OTEL_SERVICE_NAME says otherwise. Without the variables, nothing is printed.
 */
import { startNpmStart, type NpmStart } from '@vus/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(180_000);

const folders: string[] = [];
const started: NpmStart[] = [];

async function npmStart(env: Record<string, string>): Promise<NpmStart> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vus-embedded-otel-'));
  folders.push(dataDir);
  // NODE_OPTIONS is cleared: the point is that nothing but the OTEL_* variables is needed.
  const server = await startNpmStart({ DATA_DIR: dataDir, NODE_OPTIONS: '', OTEL_TRACES_EXPORTER: '', ...env }, 120_000);
  started.push(server);
  return server;
}

/** Lists the organization's indexes once (the gateway's route, then index-service over gRPC). */
async function listIndexes(server: NpmStart): Promise<void> {
  const res = await fetch(`${server.baseUrl}/v1.3/indexes`, { headers: { 'x-api-key': server.apiKey! } });
  expect(res.status).toBe(200);
}

/** Waits until `pattern` is in the server's output (the console exporter writes each span as it ends). */
async function printed(server: NpmStart, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 200 && !pattern.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50));
  expect(server.output()).toMatch(pattern);
}

/**
 * The first span the console exporter printed with this name and kind (1 server, 2 client): its
 * trace, id and parent's id, read from the printed object's lines.
 */
function printedSpan(out: string, name: string, kind: number): { traceId: string; id: string; parentId: string | undefined } {
  const spans = out.split(/^\{$/m).filter((block) => block.includes(`  name: '${name}',`) && block.includes(`  kind: ${kind},`));
  expect(spans.length).toBeGreaterThan(0);
  const block = spans[0]!;
  const field = (pattern: RegExp) => pattern.exec(block)?.[1];
  return {
    traceId: field(/^ {2}traceId: '(\w+)'/m)!,
    id: field(/^ {2}id: '(\w+)'/m)!,
    parentId: field(/^ {2}parentSpanContext: \{[^}]*?spanId: '(\w+)'/ms),
  };
}

afterAll(async () => {
  for (const server of started) await server.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

test('OTEL_TRACES_EXPORTER=console prints the spans of a request, named for the embedded process', async () => {
  const server = await npmStart({ OTEL_TRACES_EXPORTER: 'console' });
  await listIndexes(server);
  // The route's span ends last, after the calls it made.
  await printed(server, /name: 'GET \/indexes'/);
  const out = server.output();
  // One trace: the route's span → the gRPC client span → index-service's server span.
  const route = printedSpan(out, 'GET /indexes', 1);
  const client = printedSpan(out, 'vus.index.v1.IndexService/ListIndexes', 2);
  const handled = printedSpan(out, 'vus.index.v1.IndexService/ListIndexes', 1);
  expect(client).toMatchObject({ traceId: route.traceId, parentId: route.id });
  expect(handled).toMatchObject({ traceId: route.traceId, parentId: client.id });
  expect(out).toMatch(/'service\.name': 'vus-embedded'/);
  expect(out).toMatch(/'http\.route': '\/indexes'/);
  expect(out).toMatch(/'http\.response\.status_code': 200/);
  expect(await server.stop()).toBe(0);
});

test('OTEL_SERVICE_NAME names the process; with no exporter configured nothing is printed', async () => {
  const [named, quiet] = await Promise.all([
    npmStart({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'video-search' }),
    npmStart({}),
  ]);
  await Promise.all([listIndexes(named), listIndexes(quiet)]);
  await printed(named, /name: 'GET \/indexes'/);
  expect(named.output()).toMatch(/'service\.name': 'video-search'/);
  expect(named.output()).not.toMatch(/'service\.name': 'vus-embedded'/);
  // The quiet one answered the same request, and has stopped (an SDK would have flushed its spans).
  expect(await quiet.stop()).toBe(0);
  expect(quiet.output()).toMatch(/^Base URL: /m);
  expect(quiet.output()).not.toMatch(/traceId|instrumentationScope/);
});

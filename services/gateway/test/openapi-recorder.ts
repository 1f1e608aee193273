/*
 * Recorded answers against the OpenAPI documents: a loopback proxy in front of the gateway keeps
 * every request and answer that passes (the SDK suites point the SDKs at it), and each answer
 * is then validated against the schema its version's document gives for that operation and
 * status (ajv, JSON Schema 2020-12: the dialect of OpenAPI 3.1).
 */
import Ajv2020 from 'ajv/dist/2020';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedExchange {
  method: string;
  /** Path and query, e.g. /v1.3/indexes?page=2. */
  url: string;
  status: number;
  contentType: string;
  body: string;
}

export interface RecordingProxy {
  url: string;
  exchanges: RecordedExchange[];
  stop(): Promise<void>;
}

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'content-encoding']);

/** A proxy to `target` that records each exchange (whole bodies: for tests with small answers). */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: RecordedExchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.entries(req.headers).flatMap(([name, value]): [string, string][] =>
        HOP_HEADERS.has(name) || value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
      );
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      // A GET or HEAD body (supertest sends `{}` when asked to) cannot be forwarded by fetch: dropped.
      const forwardBody = body && body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {};
      fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers, ...forwardBody, redirect: 'manual' })
        .then(async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          exchanges.push({
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            status: answer.status,
            contentType: answer.headers.get('content-type') ?? '',
            body: text.toString('utf8'),
          });
          answer.headers.forEach((value, name) => {
            if (!HOP_HEADERS.has(name)) res.setHeader(name, value);
          });
          res.writeHead(answer.status).end(text);
        })
        .catch((error: unknown) => res.writeHead(502).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    stop: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

type Json = Record<string, any>;

/** The document's path template as a pattern over request paths. */
const templatePattern = (template: string) => new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);

/** The operation of a document that an exchange went to (literal segments win over parameters, as the router's order does). */
function operationOf(document: Json, method: string, path: string): { template: string; operation: Json } | undefined {
  const candidates = Object.entries(document.paths as Record<string, Json>)
    .filter(([template, item]) => item[method] && templatePattern(template).test(path))
    .sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  const [found] = candidates;
  return found ? { template: found[0], operation: found[1][method] as Json } : undefined;
}

/**
 * An endpoint the version does not document (unknown, or one it answers as unavailable) still
 * answers in the version's error form: every operation's `default` response.
 */
function anyOperation(document: Json): { template: string; operation: Json } | undefined {
  const [template, item] = Object.entries(document.paths as Record<string, Json>)[0] ?? [];
  const operation = item && (Object.values(item)[0] as Json);
  return template && operation
    ? { template: `${template}, the error form`, operation: { responses: { default: operation.responses.default } } }
    : undefined;
}

/**
 * Each exchange's answer against its version's document: the schema of its status (or `default`
 * for errors). Returns what failed, as readable lines; exchanges outside a version are skipped.
 */
export function validateExchanges(exchanges: readonly RecordedExchange[], documents: Readonly<Record<string, Json>>): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const failures: string[] = [];
  for (const exchange of exchanges) {
    const [path] = exchange.url.split('?') as [string];
    const version = /^\/(v[\d.]+)(\/.*)$/.exec(path);
    if (!version) continue;
    const document = documents[version[1]!];
    if (!document) {
      failures.push(`${exchange.method} ${exchange.url}: no document for ${version[1]}`);
      continue;
    }
    const found =
      operationOf(document, exchange.method.toLowerCase(), version[2]!) ?? (exchange.status >= 400 ? anyOperation(document) : undefined);
    if (!found) {
      failures.push(`${exchange.method} ${exchange.url}: not in the ${version[1]} document`);
      continue;
    }
    const responses = found.operation.responses as Json;
    const response = (responses[String(exchange.status)] ?? (exchange.status >= 400 ? responses.default : undefined)) as Json | undefined;
    const where = `${exchange.method} ${exchange.url} → ${exchange.status} (${found.template})`;
    if (!response) {
      failures.push(`${where}: status not documented`);
      continue;
    }
    const isJson = exchange.contentType.startsWith('application/json');
    const schema = (response.content as Json | undefined)?.['application/json']?.schema as Json | undefined;
    const eventSchema = (response.content as Json | undefined)?.['text/event-stream']?.schema as Json | undefined;
    if (exchange.contentType.startsWith('text/event-stream') && eventSchema) {
      // Server-Sent Events: each `data:` but the closing [DONE] is one event of the documented schema.
      const validate = ajv.compile(eventSchema);
      for (const data of exchange.body.split('\n').filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')) {
        if (!validate(JSON.parse(data.slice(6)))) failures.push(`${where}: ${ajv.errorsText(validate.errors)} in ${data.slice(0, 300)}`);
      }
      continue;
    }
    if (!isJson) {
      if (exchange.body !== '' && schema)
        failures.push(`${where}: documented as JSON, answered ${exchange.contentType || 'no content type'}`);
      continue;
    }
    if (!schema) {
      failures.push(`${where}: JSON answer where none is documented`);
      continue;
    }
    const validate = ajv.compile(schema);
    if (!validate(JSON.parse(exchange.body))) {
      failures.push(`${where}: ${ajv.errorsText(validate.errors)} in ${exchange.body.slice(0, 300)}`);
    }
  }
  return failures;
}

/** The documents of the versions the exchanges used, from the gateway itself. */
export async function documentsFor(gatewayUrl: string, exchanges: readonly RecordedExchange[]): Promise<Record<string, Json>> {
  const versions = new Set(exchanges.map((e) => /^\/(v[\d.]+)\//.exec(e.url)?.[1]).filter((v): v is string => v !== undefined));
  const documents: Record<string, Json> = {};
  for (const version of versions) documents[version] = (await (await fetch(`${gatewayUrl}/${version}/openapi.json`)).json()) as Json;
  return documents;
}

/**
 * An OpenAPI document checked by @seriousme/openapi-schema-validator (the OpenAPI 3.1 schema
 * and its JSON Schema dialect). The package is ES-module only, which jest's CommonJS tests cannot
 * import: it runs in a child node process.
 */
export function validateOpenApiDocument(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const result = await new Validator().validate(JSON.parse(input));
    process.stdout.write(JSON.stringify(result));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(document),
    cwd: __dirname,
    encoding: 'utf8',
  });
  return JSON.parse(output) as { valid: boolean; errors?: unknown };
}

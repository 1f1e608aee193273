import { z } from 'zod';
import { contractPath, endpointName, paramName, servedPath, type Endpoint } from '../endpoints/endpoint';
import type { VersionAdapter } from '../versions';
import { successTypeOf, unavailableIn } from '../versions/middleware';
import type { OperationSpec } from './operation';
import { versionShapes } from './shapes';

/**
 * The OpenAPI 3.1 document of one version, generated from the endpoint descriptors its router
 * serves (so an endpoint cannot be served undocumented, nor documented unserved), each one's `doc`
 * with the request schemas its route validates with, and the version's response shapes, through zod's own JSON Schema output (draft
 * 2020-12, the dialect of OpenAPI 3.1). Routes the version answers as unavailable
 * (api_upgrade_required, removed) are left out.
 */
export interface VersionDocument {
  document: Record<string, unknown>;
  /** Served endpoints without a `doc` (`POST /things`): documented as bare operations. */
  undocumented: string[];
}

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  // The document's dialect is already 2020-12: no `$schema` per schema.
  const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete converted.$schema;
  // zod leaves an object's own examples out when a field of it is preprocessed (io: input): put them back.
  const examples = z.globalRegistry.get(schema)?.examples;
  if (examples && !converted.examples) converted.examples = examples;
  return converted;
}

const pathParams = (path: string) =>
  path
    .split('/')
    .filter((s) => s.startsWith(':') || s.startsWith('*'))
    .map(paramName);

/** The operation of one endpoint as OpenAPI writes it. */
function operation(version: VersionAdapter, endpoint: Endpoint, spec: OperationSpec, error: z.ZodType): JsonSchema {
  const type = successTypeOf(version, endpoint);
  const path = servedPath(endpoint);
  const typed = (schema: z.ZodType) => (type && schema instanceof z.ZodObject ? schema.extend({ type: z.literal(type) }) : schema);
  const responses: JsonSchema = {};
  for (const [status, answer] of Object.entries(spec.responses)) {
    const content: JsonSchema = {};
    if (answer.json) content['application/json'] = { schema: jsonSchema(typed(answer.json), 'output') };
    else if (Number(status) >= 400) content['application/json'] = { schema: jsonSchema(error, 'output') };
    if (answer.ndjson)
      content['application/x-ndjson'] = {
        schema: { ...jsonSchema(answer.ndjson, 'output'), description: 'One event: each line of the stream is one JSON object.' },
      };
    if (answer.sse)
      content['text/event-stream'] = {
        schema: {
          ...jsonSchema(answer.sse, 'output'),
          description: 'One event: `event: <its type>`, then `data: <the event as JSON>`; the stream ends with `data: [DONE]`.',
        },
      };
    responses[status] = { description: answer.description, ...(Object.keys(content).length > 0 ? { content } : {}) };
  }
  responses.default = {
    description: 'An error, in this version’s form.',
    content: { 'application/json': { schema: jsonSchema(error, 'output') } },
  };
  const parameters = [
    ...pathParams(path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(spec.query ?? {}).map(([name, query]) => {
      const schema = jsonSchema(query.schema, 'input');
      const optional = query.schema.safeParse(undefined).success;
      return { name, in: 'query', required: !optional, schema, ...(query.description ? { description: query.description } : {}) };
    }),
  ];
  const body = spec.body;
  const requestContent: JsonSchema = {};
  if (body?.json) requestContent['application/json'] = { schema: jsonSchema(body.json, 'input') };
  if (body?.multipart) requestContent['multipart/form-data'] = { schema: jsonSchema(body.multipart, 'input') };
  if (body?.urlencoded) requestContent['application/x-www-form-urlencoded'] = { schema: jsonSchema(body.urlencoded, 'input') };
  return {
    operationId: `${endpoint.method}${contractPath(path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(Object.keys(requestContent).length > 0 ? { requestBody: { required: body?.required ?? false, content: requestContent } } : {}),
    responses,
    ...(spec.public ? { security: [] } : {}),
  };
}

const TAG_ORDER = [
  'Indexes',
  'Tasks',
  'Videos',
  'Search',
  'Generate',
  'Embeddings',
  'Engines',
  'Webhooks',
  'Not built',
  'Docs',
  'Undocumented',
];

/** The methods an endpoint answers in the document: `all` (the not-built catch-alls) as GET and POST. */
const methodsOf = (endpoint: Endpoint) => (endpoint.method === 'all' ? ['get', 'post'] : [endpoint.method]);

export function openApiDocument(version: VersionAdapter, endpoints: readonly Endpoint[]): VersionDocument {
  const shapes = versionShapes(version);
  const paths: Record<string, Record<string, unknown>> = {};
  const undocumented: string[] = [];
  const used = new Set<string>();
  for (const endpoint of endpoints) {
    if (unavailableIn(version, endpoint)) continue;
    if (!endpoint.doc) undocumented.push(endpointName(endpoint));
    const spec: OperationSpec = endpoint.doc?.(shapes) ?? { summary: endpointName(endpoint), tag: 'Undocumented', responses: {} };
    used.add(spec.tag);
    const item = (paths[contractPath(servedPath(endpoint))] ??= {});
    for (const method of methodsOf(endpoint)) {
      // The first endpoint the router tries is the one that serves.
      item[method] ??= operation(version, endpoint, spec, shapes.schemas.error);
    }
  }
  const notes = [
    `The ${version.name} API of this server, at /${version.name} (and /p/${version.name}). Authenticate with the x-api-key header.`,
    version.revisionOf
      ? `${version.name} is a revision of ${version.revisionOf}'s documentation: the same shapes, also at /${version.revisionOf}.`
      : '',
    version.deprecation ? `Superseded by ${version.deprecation.successor}: answers carry Deprecation: true.` : '',
  ].filter(Boolean);
  return {
    document: {
      openapi: '3.1.0',
      info: { title: `Video understanding API ${version.name}`, version: version.name, description: notes.join('\n\n') },
      servers: [{ url: `/${version.name}` }],
      // The order the docs page lists them in: the usual path through the API first.
      tags: [...TAG_ORDER.filter((name) => used.has(name)), ...[...used].filter((name) => !TAG_ORDER.includes(name))].map((name) => ({
        name,
      })),
      security: [{ apiKey: [] }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      paths,
    },
    undocumented,
  };
}

import { ApiError, newId, type Logger } from '@vus/core';
import type { BillingClient } from '@vus/clients';
import type { LimitsSource, UsageCounters } from '@vus/limits';
import { embedMediaKey, type BlobStore } from '@vus/blob';
import express, { type Express, type RequestHandler } from 'express';
import type { Clients } from './clients';
import { mountedAt, servedPath, type Endpoint } from './endpoints/endpoint';
import { endpointFinder, routerOf } from './endpoints/router';
import { parseBody, type BodyLimits } from './http/body';
import { locals, requestContext } from './http/context';
import { noSniff } from './http/page-security';
import { bodyRateCheck } from './limits/before-body';
import { rateLimits } from './limits/middleware';
import { errorHandler, writeError } from './http/errors';
import type { KeyService } from './keys';
import { DEFAULT_PROVIDERS, type ProviderSettings } from './providers';
import { adminEndpoints, requireAdminToken } from './routes/admin';
import { adminBillingEndpoints } from './routes/admin-billing';
import { embedEndpoints } from './routes/embed';
import { docsEndpoints } from './routes/docs';
import { engineEndpoints } from './routes/engines';
import { classifyEndpoints } from './routes/classify';
import type { RouteDeps } from './routes/deps';
import { analyzeBatchEndpoints } from './routes/analyze-batches';
import { analyzeTaskEndpoints } from './routes/analyze-tasks';
import { generateEndpoints } from './routes/generate';
import { responseEndpoints } from './routes/responses';
import { healthEndpoints } from './routes/health';
import { hlsFileEndpoints } from './routes/hls';
import { importEndpoints } from './routes/imports';
import { indexEndpoints } from './routes/indexes';
import { notBuiltEndpoints } from './routes/not-built';
import { assetChunkEndpoints, assetEndpoints } from './routes/assets';
import { knowledgeCollectionEndpoints } from './routes/knowledge-collections';
import { knowledgeSearchEndpoints } from './routes/knowledge-search';
import { knowledgeStoreEndpoints } from './routes/knowledge-stores';
import { entityEndpoints } from './routes/entities';
import { playgroundEndpoints, playgroundFiles } from './routes/playground';
import { servedAs } from './routes/version';
import { searchEndpoints } from './routes/search';
import { taskEndpoints } from './routes/tasks';
import { thumbnailFileEndpoints } from './routes/thumbnails';
import type { ThumbnailUrlOptions } from './http/media-urls';
import { videoEndpoints } from './routes/videos';
import { webhookEndpoints } from './routes/webhooks';
import { adapterFor, SERVED_VERSIONS, UNSERVED_VERSIONS, type ApiVersion, type VersionAdapter } from './versions';
import { versionMiddleware } from './versions/middleware';
import { openApiEndpoint } from './openapi/route';

export interface AppDeps {
  keys: KeyService;
  clients: Clients;
  logger: Logger;
  /** SPEC §8 rate limits: shared counters and each organization's effective limits. */
  limits: { counters: UsageCounters; source: LimitsSource };
  /** billing-service, for the admin API's plan operations; absent: those answer 501. */
  billing?: BillingClient | undefined;
  /** Admin API is mounted only when set. */
  adminToken?: string | undefined;
  bodyLimits: BodyLimits;
  /** Time a request may spend in downstream calls. */
  requestTimeoutMs: number;
  /** Named readiness checks (database, each gRPC dependency). */
  readiness: () => Promise<Record<string, boolean>>;
  /** Signed, expiring thumbnail URLs (GET …/thumbnail and the route that serves them), and video stream URLs (`signer.hls`). */
  thumbnails: ThumbnailUrlOptions;
  /** Where POST /tasks streams uploaded videos (the indexing worker's store), and their size limit. */
  uploads?: { blobs?: BlobStore | undefined; maxBytes: number } | undefined;
  /** YouTube and S3 for the import endpoints, and how long to wait for them. */
  providers?: ProviderSettings | undefined;
}

/** The contract's upload limit (API-CONTRACT §5.3: size ≤ 2 GB). */
const DEFAULT_UPLOAD_BYTES = 2 * 1024 ** 3;

function authenticate(keys: KeyService): RequestHandler {
  return (req, res, next) => {
    const key = req.headers['x-api-key'];
    keys.authenticate(typeof key === 'string' ? key : undefined).then((orgId) => {
      const l = locals(res);
      l.orgId = orgId;
      l.logger = l.logger.child({ orgId });
      next();
    }, next);
  };
}

/** The one object every route module is built from. */
function routeDepsOf(deps: AppDeps): RouteDeps {
  return {
    clients: deps.clients,
    timeoutMs: deps.requestTimeoutMs,
    thumbnails: deps.thumbnails,
    blobs: deps.uploads?.blobs,
    uploadLimits: {
      fileBytes: deps.uploads?.maxBytes ?? DEFAULT_UPLOAD_BYTES,
      fieldBytes: deps.bodyLimits.field,
      textBytes: deps.bodyLimits.json,
    },
    providers: deps.providers ?? DEFAULT_PROVIDERS,
    keys: deps.keys,
    billing: deps.billing,
  };
}

/**
 * The endpoints of one version, in the order the router tries them. Every part of the gateway that
 * depends on the endpoint (rate categories, body parsing, availability, the OpenAPI document) reads
 * these descriptors (endpoints/endpoint.ts): adding an endpoint is one entry in its route module.
 */
export function versionEndpoints(version: VersionAdapter, deps: RouteDeps): Endpoint[] {
  return [
    // First: v1's /indexes/tasks… must not be taken for an index id by GET /indexes/:indexId.
    ...mountedAt(version.tasks.pathPrefix, [...taskEndpoints(deps), ...importEndpoints(deps)]),
    ...indexEndpoints(deps),
    ...engineEndpoints(deps),
    ...videoEndpoints(deps),
    ...webhookEndpoints(deps),
    ...assetEndpoints(deps),
    ...knowledgeStoreEndpoints(deps),
    ...knowledgeSearchEndpoints(deps),
    ...knowledgeCollectionEndpoints(deps),
    ...entityEndpoints(deps),
    ...searchEndpoints(deps),
    ...generateEndpoints(deps),
    ...responseEndpoints(deps),
    ...analyzeTaskEndpoints(deps),
    ...analyzeBatchEndpoints(deps),
    ...embedEndpoints(deps),
    ...classifyEndpoints(deps),
  ];
}

/** A version's router, and every endpoint it serves (for the app's listing). */
function versionRouter(version: ApiVersion, deps: AppDeps): { router: express.Router; endpoints: Endpoint[] } {
  const adapter = adapterFor(version);
  const served = versionEndpoints(adapter, routeDepsOf(deps));
  // Not built: answered 501 whatever the request, without reading its body or counting it.
  const notBuilt = notBuiltEndpoints();
  // Public, before authentication: this version's OpenAPI document, made from the endpoints below.
  const openApi = openApiEndpoint(adapter, () => endpoints);
  const endpoints = [openApi, ...served, ...notBuilt];

  const router = express.Router();
  router.use(servedAs(adapter));
  router.use(routerOf([openApi]));
  router.use(authenticate(deps.keys));
  // Which endpoint serves the request is known before its body is read or its quota is used.
  router.use(endpointFinder(served));
  router.use(versionMiddleware(adapter));
  // The rate check comes before the body wherever the endpoint tells the category; /embed-v2's body
  // tells it, and its parser asks for the check before it reads the media (limits/before-body.ts).
  const rateCheck = bodyRateCheck(rateLimits(deps.limits.counters, deps.limits.source));
  router.use(
    parseBody(deps.bodyLimits, {
      blobs: deps.uploads?.blobs,
      newKey: (_req, res) => embedMediaKey(locals(res).orgId!, newId()),
      beforeMedia: rateCheck.beforeMedia,
    }),
  );
  router.use(rateCheck.afterBody);
  router.use(routerOf(served));
  router.use(routerOf(notBuilt));
  return { router, endpoints };
}

/** A route the app serves, by its method and full path pattern (the fuzz suite requests each). */
export interface ServedRoute {
  method: string;
  path: string;
}

/** What createApp serves: the Express app and every route of it, in the order it tries them. */
export interface GatewayApp {
  app: Express;
  routes: ServedRoute[];
}

/** The gateway: version routers behind auth, the admin API, health, and one error format. */
export function createApp(deps: AppDeps): GatewayApp {
  const app = express();
  const routes: ServedRoute[] = [];
  /** Lists `endpoints` as served under each prefix (the app's root: ''). */
  const serve = (prefixes: readonly string[], endpoints: readonly Endpoint[]) => {
    for (const prefix of prefixes) routes.push(...endpoints.map((e) => ({ method: e.method, path: `${prefix}${servedPath(e)}` })));
  };
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(deps.logger));
  app.use(noSniff);

  const routeDeps = routeDepsOf(deps);
  const publicEndpoints = [
    ...healthEndpoints({ ...routeDeps, readiness: deps.readiness }),
    ...thumbnailFileEndpoints(routeDeps),
    // Chunks of multipart asset uploads, PUT to presigned URLs (no API key: the signature is the permission).
    ...assetChunkEndpoints(routeDeps),
    // Video streams: the files come from index-service, which owns them.
    ...hlsFileEndpoints(routeDeps),
  ];
  serve([''], publicEndpoints);
  app.use(routerOf(publicEndpoints));
  if (deps.adminToken) {
    const endpoints = [...adminEndpoints(routeDeps), ...adminBillingEndpoints(routeDeps)];
    serve(['/admin'], endpoints);
    app.use('/admin', requireAdminToken(deps.adminToken), endpointFinder(endpoints), parseBody(deps.bodyLimits), routerOf(endpoints));
  }

  // Public: the API reference over every version's OpenAPI document, and the playground page at /
  // with its files under /assets (web/).
  const pages = [...docsEndpoints(SERVED_VERSIONS), ...playgroundEndpoints()];
  serve([''], pages);
  app.use(routerOf(pages), playgroundFiles());
  for (const version of SERVED_VERSIONS) {
    // `/p/<version>` is the playground alias of the same API (API-CONTRACT §1).
    const prefixes = [`/${version}`, `/p/${version}`];
    const { router, endpoints } = versionRouter(version, deps);
    serve(prefixes, endpoints);
    app.use(prefixes, router);
  }
  for (const version of UNSERVED_VERSIONS) {
    app.use([`/${version}`, `/p/${version}`], () => {
      throw new ApiError('not_implemented', `API version ${version} is not served yet. Use ${SERVED_VERSIONS.join(' or ')}.`);
    });
  }

  app.use((req, res) => {
    writeError(res, new ApiError('endpoint_not_found', `No endpoint ${req.method} ${req.path}.`));
  });
  app.use(errorHandler(deps.logger));
  return { app, routes };
}

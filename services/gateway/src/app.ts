import { ApiError, newId, type Logger } from '@vus/core';
import type { BillingClient } from '@vus/clients';
import type { LimitsSource, UsageCounters } from '@vus/limits';
import { embedMediaKey, type BlobStore } from '@vus/blob';
import express, { type Express, type RequestHandler } from 'express';
import type { Clients } from './clients';
import { parseBody, type BodyLimits } from './http/body';
import { locals, outgoing, requestContext } from './http/context';
import { noSniff } from './http/page-security';
import { bodyRateCheck } from './limits/before-body';
import { rateLimits } from './limits/middleware';
import { errorHandler, writeError } from './http/errors';
import { routeFinder, routesOf } from './http/route-table';
import type { KeyService } from './keys';
import { DEFAULT_PROVIDERS, type ProviderSettings } from './providers';
import { adminRoutes, requireAdminToken } from './routes/admin';
import { adminBillingRoutes } from './routes/admin-billing';
import { embedRoutes, isEmbedTaskUpload } from './routes/embed';
import { docsRoutes } from './routes/docs';
import { engineRoutes, providersListing } from './routes/engines';
import { classifyRoutes } from './routes/classify';
import type { RouteDeps } from './routes/deps';
import { generateRoutes } from './routes/generate';
import { hlsFileRoutes } from './routes/hls';
import { importRoutes } from './routes/imports';
import { indexRoutes } from './routes/indexes';
import { notBuiltRoutes } from './routes/not-built';
import { assetChunkRoutes, assetRoutes, isAssetUpload } from './routes/assets';
import { playgroundRoutes } from './routes/playground';
import { servedAs } from './routes/version';
import { searchRoutes } from './routes/search';
import { isTaskUpload, taskRoutes } from './routes/tasks';
import { thumbnailFileRoutes } from './routes/thumbnails';
import type { ThumbnailUrlOptions } from './http/media-urls';
import { videoRoutes } from './routes/videos';
import { webhookRoutes } from './routes/webhooks';
import { adapterFor, SERVED_VERSIONS, UNSERVED_VERSIONS, type ApiVersion } from './versions';
import { versionMiddleware } from './versions/middleware';
import { openApiHandler } from './openapi/route';

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

/** Routers under a path prefix (or as they are without one). */
const mountedAt = (prefix: string | undefined, routers: express.Router[]): express.Router[] =>
  prefix ? routers.map((router) => express.Router().use(prefix, router)) : routers;

function versionRouter(version: ApiVersion, deps: AppDeps): express.Router {
  const router = express.Router();
  router.use(servedAs(adapterFor(version)));
  // Public, before authentication: this version's OpenAPI document, made from this router's own routes.
  router.get(
    '/openapi.json',
    openApiHandler(adapterFor(version), () => routesOf(router)),
  );
  router.use(authenticate(deps.keys));
  const routeDeps = routeDepsOf(deps);
  const taskEndpoints = [taskRoutes(routeDeps), importRoutes(routeDeps)];
  const endpoints = [
    // First: v1's /indexes/tasks… must not be taken for an index id by GET /indexes/:indexId.
    ...mountedAt(adapterFor(version).tasks.pathPrefix, taskEndpoints),
    indexRoutes(routeDeps),
    engineRoutes(routeDeps),
    videoRoutes(routeDeps),
    webhookRoutes(routeDeps),
    assetRoutes(routeDeps),
    searchRoutes(routeDeps),
    generateRoutes(routeDeps),
    embedRoutes(routeDeps),
    classifyRoutes(routeDeps),
  ];
  // Which endpoint serves the request is known before its body is read or its quota is used.
  router.use(routeFinder(endpoints));
  router.use(versionMiddleware(adapterFor(version)));
  // The rate check comes before the body wherever the route tells the category; /embed-v2's body
  // tells it, and its parser asks for the check before it reads the media (limits/before-body.ts).
  const rateCheck = bodyRateCheck(rateLimits(deps.limits.counters, deps.limits.source));
  const parse = parseBody(deps.bodyLimits, {
    blobs: deps.uploads?.blobs,
    newKey: (_req, res) => embedMediaKey(locals(res).orgId!, newId()),
    beforeMedia: rateCheck.beforeMedia,
  });
  // A POST /tasks, /assets or /embed/tasks upload streams its file to the blob store (routes/tasks.ts, assets.ts,
  // embed.ts) after the rate check: not parsed here.
  const streamsItsBody = (req: express.Request) => isTaskUpload(req) || isAssetUpload(req) || isEmbedTaskUpload(req);
  router.use((req, res, next) => (streamsItsBody(req) ? ((req.body = {}), next()) : parse(req, res, next)));
  router.use(rateCheck.afterBody);
  for (const endpoint of endpoints) router.use(endpoint);
  router.use(notBuiltRoutes());
  return router;
}

/** The gateway: version routers behind auth, the admin API, health, and one error format. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(deps.logger));
  app.use(noSniff);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Which models serve the engines (the speech recogniser …), as the engines listing says.
  app.get('/health', async (_req, res) => {
    const providers = await providersListing(deps.clients.embed, outgoing(res, deps.requestTimeoutMs));
    res.json({ status: 'ok', ...(providers ? { providers } : {}) });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await deps.readiness();
    const ready = Object.values(checks).every(Boolean);
    res
      .status(ready ? 200 : 503)
      .json(ready ? { status: 'ready', checks } : { code: 'service_unavailable', message: 'Not ready.', checks });
  });

  const routeDeps = routeDepsOf(deps);
  app.use(thumbnailFileRoutes(routeDeps));
  // Chunks of multipart asset uploads, PUT to presigned URLs (no API key: the signature is the permission).
  app.use(assetChunkRoutes(routeDeps));
  // Video streams: the files come from index-service, which owns them.
  app.use(hlsFileRoutes(routeDeps));
  if (deps.adminToken) {
    const endpoints = [adminRoutes(routeDeps), adminBillingRoutes(routeDeps)];
    app.use('/admin', requireAdminToken(deps.adminToken), routeFinder(endpoints), parseBody(deps.bodyLimits), ...endpoints);
  }

  // Public: the API reference over every version's OpenAPI document.
  app.use(docsRoutes(SERVED_VERSIONS));
  // Public: the playground page at / and its files under /assets (web/).
  app.use(playgroundRoutes());
  for (const version of SERVED_VERSIONS) {
    // `/p/<version>` is the playground alias of the same API (API-CONTRACT §1).
    app.use([`/${version}`, `/p/${version}`], versionRouter(version, deps));
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
  return app;
}

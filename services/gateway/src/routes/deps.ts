import type { BlobStore } from '@vus/blob';
import { ApiError } from '@vus/core';
import type { BillingClient } from '@vus/clients';
import type { Clients } from '../clients';
import type { ThumbnailUrlOptions } from '../http/media-urls';
import type { UploadLimits } from '../http/upload';
import type { KeyService } from '../keys';
import type { ProviderSettings } from '../providers';

/**
 * What the route modules are built from (app.ts makes it once): each module takes this one object,
 * `Pick`ing the parts it uses.
 */
export interface RouteDeps {
  /** The downstream services; the optional ones answer 501 through `configured` when absent. */
  clients: Clients;
  /** Time a request may spend in downstream calls. */
  timeoutMs: number;
  /** Signed URLs: thumbnails (`signer`), video streams (`signer.hls`) and upload chunks (`signer.chunks`). */
  thumbnails: ThumbnailUrlOptions;
  /** Where uploads stream (the indexing worker's store); absent: media comes by URL only. */
  blobs?: BlobStore | undefined;
  /** A multipart upload's file and text limits. */
  uploadLimits: UploadLimits;
  /** YouTube and S3 for the import endpoints, and how long to wait for them. */
  providers: ProviderSettings;
  /** Organizations and API keys (the admin API). */
  keys: KeyService;
  /** billing-service, for the admin API's plan operations; absent: those answer 501. */
  billing?: BillingClient | undefined;
}

/**
 * What each optional part of the deps serves, in the words its absence is answered with (501
 * not_implemented). The wordings are those the API has always given.
 */
const NOT_CONFIGURED = {
  tasks: 'Indexing tasks: no task-service is configured on this server.',
  assets: 'Assets: no task-service is configured on this server.',
  embedAssets: 'Assets: this server has no task-service configured.',
  webhooks: 'Webhooks: no task-service is configured on this server.',
  knowledgeStores: 'Knowledge stores: no task-service is configured on this server.',
  entities: 'Entity collections and entities: no task-service is configured on this server.',
  search: 'Search: this server has no search-service configured.',
  generate: 'Text generation: this server has no analyze-service configured.',
  embed: 'Embeddings: this server has no embed-service configured.',
  videoEmbeddings: 'Video embeddings: this server has no embed-service configured.',
  classify: 'Classification: this server has no classify-service configured.',
  uploads: 'Uploads need a blob store, and none is configured: send a URL.',
  billing: 'Billing is not configured on this gateway (BILLING_SERVICE_ADDR).',
} as const;

export type Capability = keyof typeof NOT_CONFIGURED;

/** The 501 for a capability this server was started without. */
export function notConfigured(capability: Capability, details?: { param: string }): ApiError {
  return new ApiError('not_implemented', NOT_CONFIGURED[capability], details);
}

/** `part` of the deps (a client, the blob store), or the 501 that says the capability is not configured. */
export function configured<T>(part: T | undefined, capability: Capability, details?: { param: string }): T {
  if (!part) throw notConfigured(capability, details);
  return part;
}

/**
 * @vus/clients — one typed gRPC client per service, shared by every caller (the gateway, the
 * indexing worker, search-service). Each function is one RPC and carries the caller's context
 * (organization, deadline); errors arrive as ApiError (libs/grpc).
 */
export { createIndexClient, type IndexClient } from './index-client';
export { createTaskClient, type TaskClient } from './task-client';
export { createSearchClient, type SearchClient } from './search-client';
export { createAnalyzeClient, type AnalyzeClient } from './analyze-client';
export { createEmbedClient, type EmbedClient } from './embed-client';
export { createClassifyClient, type ClassifyClient } from './classify-client';
export { createBillingClient, type BillingClient } from './billing-client';

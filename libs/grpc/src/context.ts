import * as grpc from '@grpc/grpc-js';
import { ApiError, isId, type Logger } from '@vus/core';
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_KEY = 'x-request-id';
export const ORG_ID_KEY = 'vus-org-id';

/** What every handler knows about its caller, read from gRPC metadata. */
export interface CallContext {
  readonly requestId: string;
  readonly orgId: string | undefined;
  readonly deadline: Date | undefined;
  readonly logger: Logger;
}

/** What a caller passes on to the next hop: identity and the time left. */
export interface OutgoingContext {
  readonly requestId?: string | undefined;
  readonly orgId?: string | undefined;
  /** Absolute deadline; the next hop never gets more time than the caller has. */
  readonly deadline?: Date | undefined;
}

export function readCallContext(call: grpc.ServerUnaryCall<unknown, unknown>, logger: Logger): CallContext {
  const requestId = firstString(call.metadata, REQUEST_ID_KEY) ?? randomUUID();
  const orgId = firstString(call.metadata, ORG_ID_KEY);
  const deadline = call.getDeadline();
  return {
    requestId,
    orgId,
    deadline: deadline instanceof Date ? deadline : Number.isFinite(deadline) ? new Date(deadline) : undefined,
    logger: logger.child({ requestId, orgId }),
  };
}

export function toMetadata(ctx: OutgoingContext): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (ctx.requestId) metadata.set(REQUEST_ID_KEY, ctx.requestId);
  if (ctx.orgId) metadata.set(ORG_ID_KEY, ctx.orgId);
  return metadata;
}

/** Every organization-scoped RPC calls this first; a missing org is a wiring bug, not user input. */
export function requireOrg(ctx: CallContext): string {
  if (!isId(ctx.orgId)) throw new ApiError('unauthorized', 'The call carries no organization.');
  return ctx.orgId;
}

function firstString(metadata: grpc.Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

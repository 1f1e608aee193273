import * as grpc from '@grpc/grpc-js';
import { ApiError, earlierDeadline, isId, type CallerContext, type Logger } from '@vus/core';
import { randomUUID } from 'node:crypto';
import { INTERNAL_AUTH_KEY } from './internal-auth';

export const REQUEST_ID_KEY = 'x-request-id';
export const ORG_ID_KEY = 'vus-org-id';
/** W3C trace context; carried from hop to hop unchanged until tracing reads it. */
export const TRACEPARENT_KEY = 'traceparent';
/**
 * The caller's absolute deadline (epoch ms). gRPC sends a deadline as the time left, which the
 * server adds to its own clock on arrival — later than the caller's by the transit time at each hop.
 */
export const DEADLINE_KEY = 'vus-deadline-ms';

/** What every handler knows about its caller, read from gRPC metadata. */
export interface CallContext {
  readonly requestId: string;
  readonly orgId: string | undefined;
  readonly deadline: Date | undefined;
  readonly traceparent: string | undefined;
  readonly logger: Logger;
  /**
   * Aborted when the call is cancelled: its caller went away or its deadline passed (grpc-js also
   * reports a call that closed after it was answered; by then its handler is done).
   */
  readonly signal: AbortSignal;
}

/**
 * What a caller passes on to the next hop: identity and the time left. Inside a handler, what it
 * leaves out is inherited from the call being handled (callUnary), and a deadline is never later.
 */
export interface OutgoingContext extends CallerContext {
  readonly orgId?: string | undefined;
  /** Aborting it cancels the call (the caller's own caller went away); never inherited. */
  readonly signal?: AbortSignal | undefined;
}

export function readCallContext(call: grpc.ServerUnaryCall<unknown, unknown>, logger: Logger): CallContext {
  const cancelled = new AbortController();
  call.once('cancelled', () => cancelled.abort(new ApiError('request_canceled_or_timed_out', 'The caller cancelled the call.')));
  const requestId = firstString(call.metadata, REQUEST_ID_KEY) ?? randomUUID();
  const orgId = firstString(call.metadata, ORG_ID_KEY);
  const grpcDeadline = call.getDeadline();
  const sentDeadline = Number(firstString(call.metadata, DEADLINE_KEY));
  const deadline = earlierDeadline(
    grpcDeadline instanceof Date ? grpcDeadline : Number.isFinite(grpcDeadline) ? new Date(grpcDeadline) : undefined,
    Number.isFinite(sentDeadline) && sentDeadline > 0 ? new Date(sentDeadline) : undefined,
  );
  return {
    requestId,
    orgId,
    deadline,
    traceparent: firstString(call.metadata, TRACEPARENT_KEY),
    logger: logger.child({ requestId, orgId }),
    signal: cancelled.signal,
  };
}

/** The metadata of an outgoing call (the deadline also travels as the call's own). */
export function toMetadata(ctx: OutgoingContext, internalSecret?: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (ctx.requestId) metadata.set(REQUEST_ID_KEY, ctx.requestId);
  if (ctx.orgId) metadata.set(ORG_ID_KEY, ctx.orgId);
  if (ctx.traceparent) metadata.set(TRACEPARENT_KEY, ctx.traceparent);
  if (ctx.deadline) metadata.set(DEADLINE_KEY, String(ctx.deadline.getTime()));
  if (internalSecret) metadata.set(INTERNAL_AUTH_KEY, internalSecret);
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

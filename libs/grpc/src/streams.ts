import type * as grpc from '@grpc/grpc-js';
import type { Logger } from '@vus/core';
import { once } from 'node:events';
import { DEFAULT_CALL_POLICY, inheritCaller } from './client';
import { readCallContext, toMetadata, type CallContext, type OutgoingContext } from './context';
import { fromServiceError, toServiceError } from './errors';
import { internalSecret } from './internal-auth';
import { handleOnBehalf } from './server';

/** A server-streaming handler: its messages, produced while `signal` (the caller went away) has not fired. */
export type ServerStreamHandler<Req, Res> = (request: Req, ctx: CallContext, signal: AbortSignal) => AsyncIterable<Res>;

/**
 * Adapts a server-streaming handler to grpc-js: the handler runs on its caller's behalf (as unary
 * handlers do through `implement`); each message is written as soon as it is produced, waiting for
 * the transport to drain, so a slow reader slows the producer instead of filling memory; a
 * cancelled call stops the handler (`signal`, and the iteration ends); a thrown error ends the call
 * through the one error table.
 */
export function implementServerStream<Req, Res>(
  handler: ServerStreamHandler<Req, Res>,
  logger: Logger,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const ctx = readCallContext(call, logger);
    const abort = new AbortController();
    call.on('cancelled', () => abort.abort());
    const run = async () => {
      for await (const message of handler(call.request, ctx, abort.signal)) {
        if (abort.signal.aborted) break;
        if (!call.write(message)) await once(call, 'drain', { signal: abort.signal }).catch(() => undefined);
      }
    };
    handleOnBehalf(call, ctx, run).then(
      () => {
        if (!abort.signal.aborted) call.end();
      },
      (error: unknown) => {
        if (!abort.signal.aborted) call.emit('error', toServiceError(error, ctx.logger));
      },
    );
  };
}

/**
 * Calls one server-streaming RPC with the caller's identity and deadline (inherited from the call
 * being handled, if any) and this deployment's internal secret; yields its messages. Aborting
 * `signal` cancels the call and ends the iteration quietly; a failure arrives as an ApiError from
 * the iteration; a consumer that stops early cancels the call. Never retried: messages may have
 * been consumed already.
 */
export async function* callServerStream<Res>(
  start: (metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientReadableStream<Res>,
  ctx: OutgoingContext,
  signal?: AbortSignal,
  secret: string = internalSecret(),
): AsyncIterable<Res> {
  const outgoing = inheritCaller(ctx);
  const deadline = outgoing.deadline ?? new Date(Date.now() + DEFAULT_CALL_POLICY.defaultTimeoutMs);
  const call = start(toMetadata({ ...outgoing, deadline }, secret), { deadline });
  const cancel = () => call.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    for await (const message of call as AsyncIterable<Res>) yield message;
  } catch (error) {
    if (signal?.aborted) return;
    throw fromServiceError(error as grpc.ServiceError);
  } finally {
    signal?.removeEventListener('abort', cancel);
    call.cancel();
  }
}

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { currentCaller, earlierDeadline, jitteredBackoff } from '@vus/core';
import { toMetadata, type OutgoingContext } from './context';
import { fromServiceError } from './errors';
import { INTERNAL_AUTH_KEY, internalSecret } from './internal-auth';
import { tracingInterceptor } from './tracing';

export interface CallPolicy {
  /** Used when the caller has no deadline of its own. */
  defaultTimeoutMs: number;
  /** Retries for codes that are safe to retry (UNAVAILABLE only: the call never reached a handler). */
  retries: number;
  backoffMs: number;
}

export const DEFAULT_CALL_POLICY: CallPolicy = { defaultTimeoutMs: 10_000, retries: 2, backoffMs: 100 };

export type UnaryInvoker<Res> = (
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response?: Res) => void,
) => unknown;

/**
 * The context of an outgoing call made while handling another (a gRPC call, an event): what `ctx`
 * leaves out comes from the caller, and the deadline is the earlier of both — a call made on a
 * caller's behalf never outlives that caller.
 */
export function inheritCaller(ctx: OutgoingContext): OutgoingContext {
  const caller = currentCaller();
  if (!caller) return ctx;
  return {
    ...ctx,
    requestId: ctx.requestId ?? caller.requestId,
    traceparent: ctx.traceparent ?? caller.traceparent,
    deadline: earlierDeadline(ctx.deadline, caller.deadline),
  };
}

/**
 * Calls one unary RPC with the caller's identity and deadline (inherited from the call being
 * handled, if any) and this deployment's internal secret, retrying only UNAVAILABLE with
 * exponential backoff and jitter, and turning failures into ApiErrors. Aborting `ctx.signal`
 * cancels the call (its handler's own signal fires) and ends it with the cancellation's error.
 */
export async function callUnary<Res>(
  invoke: UnaryInvoker<Res>,
  ctx: OutgoingContext,
  policy: CallPolicy = DEFAULT_CALL_POLICY,
  secret: string = internalSecret(),
): Promise<Res> {
  const outgoing = inheritCaller(ctx);
  const deadline = outgoing.deadline ?? new Date(Date.now() + policy.defaultTimeoutMs);
  const { signal } = ctx;
  for (let attempt = 0; ; attempt++) {
    try {
      return await new Promise<Res>((resolve, reject) => {
        const call = invoke(toMetadata({ ...outgoing, deadline }, secret), { deadline }, (error, response) => {
          signal?.removeEventListener('abort', cancel);
          if (error) reject(error);
          else resolve(response as Res);
        });
        // The server sees the cancellation (its handler's ctx.signal) and stops the work.
        function cancel() {
          (call as Partial<grpc.ClientUnaryCall> | undefined)?.cancel?.();
        }
        if (signal?.aborted) cancel();
        else signal?.addEventListener('abort', cancel, { once: true });
      });
    } catch (error) {
      const serviceError = error as grpc.ServiceError;
      // The one backoff (libs/core): 1–2× backoffMs, then 2–4× …; the caller's deadline bounds it.
      const delay = jitteredBackoff(policy.backoffMs, Number.MAX_SAFE_INTEGER, attempt + 1);
      const retryable = serviceError.code === grpc.status.UNAVAILABLE && attempt < policy.retries && !signal?.aborted;
      if (!retryable || Date.now() + delay >= deadline.getTime()) throw fromServiceError(serviceError);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

type ClientConstructor<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C;

export function createClient<C>(Client: ClientConstructor<C>, address: string): C {
  return new Client(address, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.keepalive_time_ms': 30_000,
    interceptors: [tracingInterceptor],
  });
}

interface HealthClient extends grpc.Client {
  Check(
    request: { service: string },
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): void;
}

let HealthClientCtor: ClientConstructor<HealthClient> | undefined;

/**
 * What a peer's health service says of `service`: `refused` when the check presented this process's
 * internal secret and the peer does not share it (every other call to it would be refused too).
 */
export type PeerHealth = 'serving' | 'not_serving' | 'refused' | 'unreachable';

/** Asks a peer's standard health service whether `service` is SERVING. */
export async function checkHealth(address: string, service: string, timeoutMs = 2000): Promise<boolean> {
  return (await peerHealth(address, service, { timeoutMs })) === 'serving';
}

/**
 * A peer's health as a caller sees it: with `secret`, the check presents it, so a peer that does not
 * share the deployment's secret answers `refused` instead of `serving`.
 */
export async function peerHealth(
  address: string,
  service: string,
  { timeoutMs = 2000, secret }: { timeoutMs?: number; secret?: string | undefined } = {},
): Promise<PeerHealth> {
  if (!HealthClientCtor) {
    const definition = protoLoader.loadSync(healthProtoPath, { enums: String, keepCase: true });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      grpc: { health: { v1: { Health: ClientConstructor<HealthClient> } } };
    };
    HealthClientCtor = loaded.grpc.health.v1.Health;
  }
  const client = createClient(HealthClientCtor, address);
  const metadata = new grpc.Metadata();
  if (secret !== undefined) metadata.set(INTERNAL_AUTH_KEY, secret);
  try {
    const response = await new Promise<{ status: string } | undefined>((resolve, reject) =>
      client.Check({ service }, metadata, { deadline: new Date(Date.now() + timeoutMs) }, (error, res) =>
        error ? reject(error) : resolve(res),
      ),
    );
    return response?.status === 'SERVING' ? 'serving' : 'not_serving';
  } catch (error) {
    return (error as Partial<grpc.ServiceError>).code === grpc.status.UNAUTHENTICATED ? 'refused' : 'unreachable';
  } finally {
    client.close();
  }
}

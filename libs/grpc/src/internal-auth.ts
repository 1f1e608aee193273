import * as grpc from '@grpc/grpc-js';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ERROR_CODE_KEY } from './errors';

/**
 * Service-to-service calls carry the deployment's shared secret in this metadata key; a server
 * refuses every call without it (UNAUTHENTICATED) before a handler reads the organization id that
 * the same metadata names — anyone on the network can set that.
 */
export const INTERNAL_AUTH_KEY = 'vus-internal-auth';

/** Open to anyone: kubelet's gRPC probes carry no metadata. */
const OPEN_SERVICES = ['/grpc.health.v1.Health/'];

let processSecret: string | undefined;

/** Sets the secret this process's clients send and its servers expect (cluster mode: from config). */
export function useInternalSecret(secret: string): void {
  processSecret = secret;
}

/**
 * The secret of this process: the configured one, or one generated on first use — every service of
 * one process (embedded mode, tests) then shares it, and no other process knows it.
 */
export function internalSecret(): string {
  processSecret ??= randomBytes(32).toString('base64url');
  return processSecret;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison (of digests, so that the length is not revealed either). */
export function isInternalSecret(presented: unknown, secret: string): boolean {
  return typeof presented === 'string' && timingSafeEqual(digest(presented), digest(secret));
}

/**
 * The server interceptor that refuses calls without the secret. Health checks pass without one, but a
 * health check that presents a wrong one is refused too: that is how a caller (the gateway's /readyz)
 * learns that its secret is not the deployment's, where a plain probe would have said SERVING.
 */
export function internalAuthInterceptor(secret: string): grpc.ServerInterceptor {
  return (method, call) => {
    const open = OPEN_SERVICES.some((prefix) => method.path.startsWith(prefix));
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const presented = metadata.get(INTERNAL_AUTH_KEY)[0];
        if ((open && presented === undefined) || isInternalSecret(presented, secret)) return next(metadata);
        // To the end user this is a broken deployment, not their credentials: the gateway answers 503.
        const status = new grpc.Metadata();
        status.set(ERROR_CODE_KEY, 'service_unavailable');
        call.sendStatus({
          code: grpc.status.UNAUTHENTICATED,
          details: 'The call carries no valid internal credentials.',
          metadata: status,
        });
      })
      .build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  };
}

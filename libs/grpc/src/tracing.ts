import * as grpc from '@grpc/grpc-js';
import { SpanKind, markFailed, recordRpc, traceparentOf, tracer } from '@vus/telemetry';
import { TRACEPARENT_KEY } from './context';

/** `/vus.index.v1.IndexService/GetIndex` → the span name and the semantic-convention attributes. */
export function rpcSpanOf(path: string): {
  name: string;
  attributes: { 'rpc.system': 'grpc'; 'rpc.service': string; 'rpc.method': string };
} {
  const [service = '', method = ''] = path.replace(/^\//, '').split('/');
  return { name: `${service}/${method}`, attributes: { 'rpc.system': 'grpc' as const, 'rpc.service': service, 'rpc.method': method } };
}

/**
 * A client span around every call made through clients of this lib (one per attempt: retries
 * show); its traceparent replaces the one the caller's context carried, so the server's span is
 * its child. With tracing off the span is a no-op and the carried traceparent stays.
 */
export const tracingInterceptor: grpc.Interceptor = (options, nextCall) => {
  // Health probes run every few seconds on nobody's behalf: traces of them would drown the rest.
  if (options.method_definition.path.startsWith('/grpc.health.')) return new grpc.InterceptingCall(nextCall(options));
  const { name, attributes } = rpcSpanOf(options.method_definition.path);
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes });
  const started = process.hrtime.bigint();
  return new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      const traceparent = traceparentOf(span);
      if (traceparent) metadata.set(TRACEPARENT_KEY, traceparent);
      next(metadata, {
        onReceiveStatus(status, nextStatus) {
          span.setAttribute('rpc.grpc.status_code', status.code);
          if (status.code !== grpc.status.OK) markFailed(span, new Error(status.details || grpc.status[status.code]));
          span.end();
          recordRpc(
            'client',
            attributes['rpc.service'],
            attributes['rpc.method'],
            status.code,
            Number(process.hrtime.bigint() - started) / 1e9,
          );
          nextStatus(status);
        },
      });
    },
  });
};

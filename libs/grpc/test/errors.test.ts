import * as grpc from '@grpc/grpc-js';
import { ApiError, createLogger, isApiError } from '@vus/core';
import { ERROR_CODE_KEY, fromServiceError, toServiceError } from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });

function asServiceError(partial: Partial<grpc.ServiceError>): grpc.ServiceError {
  return Object.assign(new Error(partial.details ?? ''), { metadata: new grpc.Metadata(), details: '', ...partial }) as grpc.ServiceError;
}

describe('toServiceError / fromServiceError', () => {
  it.each([
    ['parameter_invalid', grpc.status.INVALID_ARGUMENT],
    ['resource_not_exist', grpc.status.NOT_FOUND],
    ['index_name_already_exists', grpc.status.ALREADY_EXISTS],
    ['too_many_requests', grpc.status.RESOURCE_EXHAUSTED],
    ['not_implemented', grpc.status.UNIMPLEMENTED],
  ] as const)('%s crosses a hop as gRPC status %i and comes back intact', (code, status) => {
    const sent = toServiceError(new ApiError(code, `msg for ${code}`, { param: 'p' }), logger);
    expect(sent.code).toBe(status);
    expect(sent.metadata?.get(ERROR_CODE_KEY)).toEqual([code]);
    const received = fromServiceError(asServiceError(sent));
    expect(received.code).toBe(code);
    expect(received.message).toBe(`msg for ${code}`);
    expect(received.details).toEqual({ param: 'p' });
  });

  // Details echo what the caller sent (an id, a parameter's value): any text at all, which an ASCII
  // metadata value cannot carry (grpc-js threw "contains illegal characters" and the call hung).
  it.each(['vidéo_é', '動画', 'a\u007fb', 'line\nbreak', '\u0000'])('carries details with %j across a hop', (value) => {
    const sent = toServiceError(new ApiError('resource_not_exist', 'not found', { id: value }), logger);
    expect(fromServiceError(asServiceError(sent)).details).toEqual({ id: value });
  });

  it('hides unknown errors behind a generic INTERNAL', () => {
    const sent = toServiceError(new Error('connection string postgres://secret'), logger);
    expect(sent.code).toBe(grpc.status.INTERNAL);
    expect(sent.details).not.toContain('secret');
    expect(fromServiceError(asServiceError(sent)).code).toBe('internal_error');
  });

  it.each([
    [grpc.status.UNAVAILABLE, 'service_unavailable'],
    [grpc.status.DEADLINE_EXCEEDED, 'deadline_exceeded'],
    [grpc.status.UNIMPLEMENTED, 'not_implemented'],
    [grpc.status.DATA_LOSS, 'internal_error'],
  ])('maps a bare status %i from a peer to %s without leaking its text', (status, code) => {
    const error = fromServiceError(asServiceError({ code: status, details: 'peer internals' }));
    expect(isApiError(error)).toBe(true);
    expect(error.code).toBe(code);
    expect(error.message).not.toContain('peer internals');
  });
});

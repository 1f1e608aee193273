import * as grpc from '@grpc/grpc-js';
import { ApiError, ERROR_CODES, isApiError, isErrorCode, type ErrorCode, type GrpcStatusName, type Logger } from '@vus/core';

/** Metadata key that carries the ApiError code across a gRPC hop. */
export const ERROR_CODE_KEY = 'vus-error-code';
// Binary (`-bin`): details echo what a caller sent, in any characters; a text metadata value
// must be printable ASCII, and grpc-js throws on anything else.
const ERROR_DETAILS_KEY = 'vus-error-details-bin';

const STATUS_BY_NAME: Readonly<Record<GrpcStatusName, grpc.status>> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
  INTERNAL: grpc.status.INTERNAL,
};

/** Server side: an ApiError keeps its code; anything else is logged and becomes a generic INTERNAL. */
export function toServiceError(error: unknown, logger: Logger): Partial<grpc.ServiceError> {
  if (!isApiError(error)) {
    logger.error({ err: error }, 'unhandled error in gRPC handler');
    return toServiceError(new ApiError('internal_error', 'An internal error occurred.'), logger);
  }
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_CODE_KEY, error.code);
  if (error.details) metadata.set(ERROR_DETAILS_KEY, Buffer.from(JSON.stringify(error.details)));
  return { code: STATUS_BY_NAME[ERROR_CODES[error.code].grpc], details: error.message, metadata };
}

// When the peer sent no code of ours (it crashed, was unreachable, or is not our service).
const CODE_BY_STATUS: Partial<Record<grpc.status, ErrorCode>> = {
  [grpc.status.UNAVAILABLE]: 'service_unavailable',
  [grpc.status.DEADLINE_EXCEEDED]: 'deadline_exceeded',
  [grpc.status.UNIMPLEMENTED]: 'not_implemented',
  [grpc.status.NOT_FOUND]: 'resource_not_exist',
  [grpc.status.INVALID_ARGUMENT]: 'parameter_invalid',
  [grpc.status.UNAUTHENTICATED]: 'unauthorized',
  [grpc.status.PERMISSION_DENIED]: 'api_not_allowed',
  [grpc.status.RESOURCE_EXHAUSTED]: 'too_many_requests',
  [grpc.status.CANCELLED]: 'request_canceled_or_timed_out',
};

const GENERIC_MESSAGE: Partial<Record<ErrorCode, string>> = {
  service_unavailable: 'A backend service is unavailable. Please try again later.',
  deadline_exceeded: 'A backend service did not answer in time. Please try again later.',
  not_implemented: 'This capability is not available on this server yet.',
  internal_error: 'An internal error occurred. Please try again later.',
};

/** Client side: the inverse of toServiceError. Never leaks a peer's internal message. */
export function fromServiceError(error: grpc.ServiceError): ApiError {
  const sentCode = error.metadata?.get(ERROR_CODE_KEY)[0];
  if (isErrorCode(sentCode)) {
    const rawDetails = error.metadata.get(ERROR_DETAILS_KEY)[0];
    const details = Buffer.isBuffer(rawDetails) ? (JSON.parse(rawDetails.toString()) as Record<string, string>) : undefined;
    return new ApiError(sentCode, error.details, details);
  }
  const code = CODE_BY_STATUS[error.code] ?? 'internal_error';
  return new ApiError(code, GENERIC_MESSAGE[code] ?? error.details);
}

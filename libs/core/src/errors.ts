/**
 * The one table of error codes. Every failure that reaches a client carries one of these codes;
 * the HTTP status and the gRPC status both come from here and nowhere else.
 *
 * Duplicate names are 400, not 409: the official Fern SDKs retry 409 (API-CONTRACT §2.5).
 */
export type GrpcStatusName =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'PERMISSION_DENIED'
  | 'UNAUTHENTICATED'
  | 'RESOURCE_EXHAUSTED'
  | 'FAILED_PRECONDITION'
  | 'UNIMPLEMENTED'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED'
  | 'INTERNAL';

interface ErrorCodeSpec {
  readonly http: number;
  readonly grpc: GrpcStatusName;
  /** Safe to retry the same request later. */
  readonly retryable?: boolean;
}

export const ERROR_CODES = {
  parameter_invalid: { http: 400, grpc: 'INVALID_ARGUMENT' },
  parameter_not_provided: { http: 400, grpc: 'INVALID_ARGUMENT' },
  parameter_unknown: { http: 400, grpc: 'INVALID_ARGUMENT' },
  body_malformed: { http: 400, grpc: 'INVALID_ARGUMENT' },
  payload_too_large: { http: 413, grpc: 'INVALID_ARGUMENT' },
  unsupported_media_type: { http: 415, grpc: 'INVALID_ARGUMENT' },
  resource_not_exist: { http: 404, grpc: 'NOT_FOUND' },
  endpoint_not_found: { http: 404, grpc: 'NOT_FOUND' },
  method_not_allowed: { http: 405, grpc: 'UNIMPLEMENTED' },
  api_key_invalid: { http: 401, grpc: 'UNAUTHENTICATED' },
  unauthorized: { http: 401, grpc: 'UNAUTHENTICATED' },
  api_not_allowed: { http: 403, grpc: 'PERMISSION_DENIED' },
  api_upgrade_required: { http: 400, grpc: 'FAILED_PRECONDITION' },
  too_many_requests: { http: 429, grpc: 'RESOURCE_EXHAUSTED', retryable: true },
  usage_limit_exceeded: { http: 429, grpc: 'RESOURCE_EXHAUSTED', retryable: true },
  request_canceled_or_timed_out: { http: 408, grpc: 'DEADLINE_EXCEEDED', retryable: true },
  index_name_already_exists: { http: 400, grpc: 'ALREADY_EXISTS' },
  index_option_cannot_be_changed: { http: 400, grpc: 'INVALID_ARGUMENT' },
  index_engine_cannot_be_changed: { http: 400, grpc: 'INVALID_ARGUMENT' },
  video_resolution_too_low: { http: 400, grpc: 'INVALID_ARGUMENT' },
  video_resolution_too_high: { http: 400, grpc: 'INVALID_ARGUMENT' },
  video_duration_too_short: { http: 400, grpc: 'INVALID_ARGUMENT' },
  video_duration_too_long: { http: 400, grpc: 'INVALID_ARGUMENT' },
  video_file_broken: { http: 400, grpc: 'INVALID_ARGUMENT' },
  audio_file_broken: { http: 400, grpc: 'INVALID_ARGUMENT' },
  unsupported_file_type: { http: 400, grpc: 'INVALID_ARGUMENT' },
  search_option_not_supported: { http: 400, grpc: 'INVALID_ARGUMENT' },
  search_option_combination_not_supported: { http: 400, grpc: 'INVALID_ARGUMENT' },
  search_filter_invalid: { http: 400, grpc: 'INVALID_ARGUMENT' },
  search_page_token_expired: { http: 400, grpc: 'INVALID_ARGUMENT' },
  index_not_supported_for_search: { http: 400, grpc: 'FAILED_PRECONDITION' },
  token_limit_exceeded: { http: 400, grpc: 'INVALID_ARGUMENT' },
  engine_not_supported: { http: 400, grpc: 'FAILED_PRECONDITION' },
  model_unavailable: { http: 503, grpc: 'UNAVAILABLE' },
  not_implemented: { http: 501, grpc: 'UNIMPLEMENTED' },
  service_unavailable: { http: 503, grpc: 'UNAVAILABLE', retryable: true },
  deadline_exceeded: { http: 504, grpc: 'DEADLINE_EXCEEDED', retryable: true },
  internal_error: { http: 500, grpc: 'INTERNAL' },
  // DELETE /assets/{id} while indexed assets reference it (v1.3 documents 409; force=true skips the check).
  asset_in_use: { http: 409, grpc: 'FAILED_PRECONDITION' },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

export function errorSpec(code: ErrorCode): ErrorCodeSpec {
  return ERROR_CODES[code];
}

/** The HTTP status a gRPC status maps to when the code itself is not in the table. */
export const HTTP_STATUS_BY_GRPC: Readonly<Record<GrpcStatusName, number>> = {
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 400,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
  INTERNAL: 500,
};

// A brand instead of `instanceof`, which fails when two copies of this package are loaded.
const API_ERROR = Symbol.for('vus.ApiError');

export class ApiError extends Error {
  readonly [API_ERROR] = true;
  override readonly name = 'ApiError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  get retryable(): boolean {
    const spec: ErrorCodeSpec = ERROR_CODES[this.code];
    return spec.retryable === true;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[API_ERROR] === true;
}

// Factories for the codes used in many places; messages follow the forms of API-CONTRACT §2.5.
export const errors = {
  notProvided: (param: string) =>
    new ApiError('parameter_not_provided', `The ${param} parameter is required but was not provided.`, { param }),
  invalid: (param: string, why?: string) =>
    new ApiError('parameter_invalid', `The ${param} parameter is invalid.${why ? ` ${why}` : ''}`, { param }),
  notFound: (what: string, id: string) => new ApiError('resource_not_exist', `${what} with id ${id} does not exist.`, { id }),
};

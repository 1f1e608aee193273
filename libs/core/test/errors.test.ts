import { ApiError, ERROR_CODES, HTTP_STATUS_BY_GRPC, errors, isApiError, isErrorCode, type ErrorCode } from '../src';

describe('ERROR_CODES', () => {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];

  it.each(codes)('%s is snake_case with a client or server HTTP status', (code) => {
    expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
    const { http } = ERROR_CODES[code];
    expect(http >= 400 && http < 600).toBe(true);
  });

  // Where the table departs from the generic gRPC → HTTP mapping, it must be on purpose.
  const deliberateExceptions: Partial<Record<ErrorCode, string>> = {
    payload_too_large: '413 is more precise than 400',
    unsupported_media_type: '415 is more precise than 400',
    method_not_allowed: '405 is more precise than 501',
    usage_limit_exceeded: 'same as RESOURCE_EXHAUSTED',
    request_canceled_or_timed_out: '408: the client, not a backend, ran out of time',
    asset_in_use: '409, as v1.3 documents for DELETE /assets/{id} while indexed assets reference it',
  };
  it.each(codes.filter((c) => !(c in deliberateExceptions)))('%s agrees with its gRPC status', (code) => {
    const { http, grpc } = ERROR_CODES[code];
    expect(http).toBe(HTTP_STATUS_BY_GRPC[grpc]);
  });

  it.each([
    ['parameter_invalid', 400],
    ['parameter_not_provided', 400],
    ['resource_not_exist', 404],
    ['api_key_invalid', 401],
    ['too_many_requests', 429],
    // Not 409: the Fern SDKs retry 409 (API-CONTRACT §2.5).
    ['index_name_already_exists', 400],
    ['payload_too_large', 413],
    ['not_implemented', 501],
  ] as const)('%s answers HTTP %i', (code, status) => {
    expect(new ApiError(code, 'x').httpStatus).toBe(status);
  });
});

describe('ApiError', () => {
  it('is recognised by its brand, not by instanceof', () => {
    const foreign = { message: 'x', code: 'parameter_invalid', [Symbol.for('vus.ApiError')]: true };
    expect(isApiError(foreign)).toBe(true);
    expect(isApiError(new Error('x'))).toBe(false);
    expect(isApiError(null)).toBe(false);
  });

  it('marks only transient codes retryable', () => {
    expect(new ApiError('service_unavailable', 'x').retryable).toBe(true);
    expect(new ApiError('parameter_invalid', 'x').retryable).toBe(false);
  });

  it('builds the contract message forms', () => {
    expect(errors.notProvided('index_name').message).toBe('The index_name parameter is required but was not provided.');
    expect(errors.invalid('page').message).toBe('The page parameter is invalid.');
    expect(errors.notFound('Index', 'abc').code).toBe('resource_not_exist');
  });

  it('knows its codes', () => {
    expect(isErrorCode('parameter_invalid')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});

/**
 * An API answer that was not a success, worded as the API worded it: `{code, message}` (every
 * endpoint), `{error: {code, message}}` (v1.3's embed-v2) or v1's `{error_code, message}`. A body
 * that is none of these (a proxy's HTML page, an empty body) is named by its HTTP status.
 */
export interface ApiErrorBody {
  status: number;
  code: string;
  message: string;
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export function errorFromBody(status: number, text: string): ApiErrorBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const body = asRecord(parsed);
  const inner = asRecord(body?.error) ?? body;
  const code = inner?.code ?? inner?.error_code;
  const message = inner?.message;
  if (typeof message === 'string' && message !== '') {
    return { status, code: typeof code === 'string' ? code : `http_${status}`, message };
  }
  return { status, code: `http_${status}`, message: `The server answered ${status} without an error message.` };
}

/** Thrown by the API client; `message` is the API's own sentence. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;
  constructor(body: ApiErrorBody) {
    super(body.message);
    this.name = 'ApiFailure';
    this.status = body.status;
    this.code = body.code;
  }
}

/** What to show for any failure: the API's words with its code, else the browser's reason. */
export function describeError(error: unknown): string {
  if (error instanceof ApiFailure) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

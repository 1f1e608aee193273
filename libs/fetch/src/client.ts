import { jitteredBackoff } from '@vus/core';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { AddressGuard } from './guard';
import { hostOf } from './url';

/**
 * The one outbound HTTP client (undici): every request this server makes to another host — a
 * user's URL, a webhook receiver, an import provider — goes through `send`, with the SSRF guard
 * when the destination is not the operator's, three deadlines, redirects checked hop by hop and
 * one retry policy.
 */

export interface Deadlines {
  /** Opening a connection (TCP, and TLS for https). */
  connectMs: number;
  /** Waiting for the response headers, and then between two chunks of the body. */
  idleMs: number;
  /** The whole exchange — retries and redirects included, and the body while it is read; none when absent. */
  overallMs?: number;
}

/** Retries with jittered exponential backoff (libs/core's `jitteredBackoff`, as every loop here). */
export interface RetryPolicy {
  /** Tries in all; 1 never retries. */
  attempts: number;
  /** Wait before the first retry; it doubles per retry, jittered over its upper half, up to `maxMs`. */
  baseMs: number;
  maxMs: number;
}

export const NO_RETRY: RetryPolicy = { attempts: 1, baseMs: 0, maxMs: 0 };

/** Statuses a server sends when trying again later may help. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
/** Failures before any answer that trying again may cure. */
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface RedirectPolicy {
  /** How many redirects are followed; one more is `TooManyRedirects`. 0: a redirect is the answer. */
  max: number;
  /** Checks each location before it is requested (scheme, credentials); throws to refuse it. */
  check?: (url: URL) => URL;
}

export interface OutboundRequest {
  url: URL;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** Sent again, unchanged, to each redirect's location. */
  body?: string | Buffer;
  /** Address rules for a destination someone outside chose; absent for the operator's own settings. */
  guard?: AddressGuard | undefined;
  deadlines: Deadlines;
  redirects?: RedirectPolicy;
  /** Only GET and HEAD are retried unless `retryUnsafe` says the receiver tolerates a repeat. */
  retry?: RetryPolicy;
  retryUnsafe?: boolean;
  signal?: AbortSignal | undefined;
  /** Random source for the backoff's jitter (tests). */
  random?: () => number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Where the answer came from (after redirects). */
  url: URL;
  /** Read it, or destroy it: the connection is released when it ends. */
  body: Readable;
  /** An error from reading the body as this module's (a passed deadline is an HttpTimeout). */
  explain(error: unknown): unknown;
}

/** A deadline passed: which one, and how long it was. */
export class HttpTimeout extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(
    readonly phase: 'connect' | 'headers' | 'body' | 'overall',
    readonly ms: number,
  ) {
    super(`${phase === 'body' ? 'the body stalled for' : 'no answer within'} ${ms} ms (${phase})`);
  }
}

/** More redirects than the policy follows; `status` is the last redirect's. */
export class TooManyRedirects extends Error {
  constructor(
    readonly status: number,
    readonly max: number,
  ) {
    super(`more than ${max} redirects`);
  }
}

/** The first value of a response header, or ''. */
export function headerValue(headers: OutboundResponse['headers'], name: string): string {
  const value = headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * One request, answered by its response headers (the body is the caller's to read). Redirects are
 * followed under `redirects` (none by default), each location checked by `redirects.check` and by
 * the guard; failures before an answer, and 429/502/503/504 answers, are retried under `retry`
 * (none by default). Rejects with SsrfRefused, HttpTimeout, TooManyRedirects, whatever `check`
 * throws, or the connection's error (its `code`, e.g. ECONNREFUSED).
 */
export async function send(outbound: OutboundRequest): Promise<OutboundResponse> {
  const { deadlines, retry = NO_RETRY, random = Math.random } = outbound;
  const overall = deadlines.overallMs === undefined ? undefined : AbortSignal.timeout(deadlines.overallMs);
  const signal = overall && outbound.signal ? AbortSignal.any([overall, outbound.signal]) : (overall ?? outbound.signal);
  const retryable =
    retry.attempts > 1 &&
    (outbound.retryUnsafe || outbound.method === undefined || outbound.method === 'GET' || outbound.method === 'HEAD');
  for (let attempt = 1; ; attempt++) {
    const last = !retryable || attempt >= retry.attempts;
    try {
      const response = await followRedirects(outbound, signal);
      if (last || !RETRYABLE_STATUSES.has(response.status)) return { ...response, explain: (error) => explain(error, outbound, overall) };
      response.body.destroy();
    } catch (error) {
      const failure = explain(error, outbound, overall);
      if (last || !isRetryable(failure)) throw failure;
    }
    try {
      await sleep(jitteredBackoff(retry.baseMs, retry.maxMs, attempt - 1, random), undefined, { signal });
    } catch (error) {
      throw explain(error, outbound, overall);
    }
  }
}

type Answer = Omit<OutboundResponse, 'explain'>;

async function followRedirects(outbound: OutboundRequest, signal: AbortSignal | undefined): Promise<Answer> {
  const { redirects = { max: 0 } } = outbound;
  let url = outbound.url;
  for (let followed = 0; ; followed++) {
    const response = await exchange(url, outbound, signal);
    const location = headerValue(response.headers, 'location');
    if (!REDIRECT_STATUSES.has(response.status) || !location || redirects.max === 0) return response;
    response.body.destroy();
    if (followed >= redirects.max) throw new TooManyRedirects(response.status, redirects.max);
    const next = new URL(location, url);
    url = redirects.check ? redirects.check(next) : next;
  }
}

/**
 * One hop on its own dispatcher, closed once the response is done: no connection is pooled, so
 * every one is opened through the guard's lookup (which checks each address at connect time —
 * no DNS rebinding between a check and the connect).
 */
async function exchange(url: URL, outbound: OutboundRequest, signal: AbortSignal | undefined): Promise<Answer> {
  const { guard, deadlines } = outbound;
  // Node skips `lookup` for a literal address: the guard checks it here.
  const literal = guard?.refuseLiteral(hostOf(url));
  if (literal) throw literal;
  const lookup: LookupFunction | undefined = guard && ((host, options, callback) => guard.lookupFor(host)(host, options, callback));
  const dispatcher = new Agent({ connect: { timeout: deadlines.connectMs, ...(lookup && { lookup }) } });
  const options: Dispatcher.RequestOptions = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: outbound.method ?? 'GET',
    headers: outbound.headers ?? {},
    body: outbound.body ?? null,
    headersTimeout: deadlines.idleMs,
    bodyTimeout: deadlines.idleMs,
    // `connection: close`, as a fresh connection per request wants.
    reset: true,
    signal,
  };
  try {
    const response = await dispatcher.request(options);
    response.body.once('close', () => void dispatcher.close());
    // Whoever reads the body gets its errors; one dropped unread (destroyed) is not an error.
    response.body.on('error', () => {});
    return { status: response.statusCode, headers: response.headers, url, body: response.body };
  } catch (error) {
    void dispatcher.close();
    throw error;
  }
}

/** Undici's own errors as this module's: a timeout says which deadline passed. */
function explain(error: unknown, outbound: Pick<OutboundRequest, 'deadlines' | 'signal'>, overall?: AbortSignal): unknown {
  if (overall?.aborted && !outbound.signal?.aborted) return new HttpTimeout('overall', outbound.deadlines.overallMs ?? 0);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new HttpTimeout('connect', outbound.deadlines.connectMs);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new HttpTimeout('headers', outbound.deadlines.idleMs);
  if (code === 'UND_ERR_BODY_TIMEOUT') return new HttpTimeout('body', outbound.deadlines.idleMs);
  return error;
}

function isRetryable(error: unknown): boolean {
  if (error instanceof HttpTimeout) return error.phase === 'connect' || error.phase === 'headers';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

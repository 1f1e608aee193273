import { ApiError, errors } from '@vus/core';
import { Transform, type Readable } from 'node:stream';
import { allowListOfHosts } from './addresses';
import { headerValue, HttpTimeout, send, TooManyRedirects, type OutboundResponse } from './client';
import { AddressGuard, unreachableReason } from './guard';
import { checkHttpUrl, hostOf } from './url';

/**
 * Fetching a user's URL from inside the cluster, with the rules of a public service (no SSRF):
 * http and https only; the connection goes only to an address the guard checked at connect time
 * (no DNS rebinding between check and connect); loopback, private, link-local, CGNAT, multicast
 * and reserved ranges are refused unless the host is allow-listed (tests serve fixtures on
 * 127.0.0.1); every redirect is checked again; time and size are bounded.
 */
export interface FetchPolicy {
  /** Host names or IP literals, as written in the URL, exempt from the address rules (FETCH_ALLOW_HOSTS). */
  allowHosts: readonly string[];
  maxBytes: number;
  /** Until the response headers arrive, and between two chunks of the body. */
  idleTimeoutMs: number;
  /** The whole fetch, redirects and body included. */
  overallTimeoutMs: number;
  /**
   * The slowest body accepted, averaged over each `rateWindowMs`: a server that trickles a byte
   * now and then never stalls long enough for `idleTimeoutMs`, and would hold a worker for days.
   */
  minBytesPerSecond: number;
  rateWindowMs: number;
  maxRedirects: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = {
  allowHosts: [],
  maxBytes: 2 * 1024 ** 3,
  idleTimeoutMs: 30_000,
  // 2 GiB (maxBytes) within the hour is about 600 KB/s; the floor is far below it.
  overallTimeoutMs: 60 * 60_000,
  minBytesPerSecond: 32 * 1024,
  rateWindowMs: 30_000,
  maxRedirects: 5,
};

export function fetchRefused(param: string, why: string): ApiError {
  return new ApiError('parameter_invalid', `The ${param} could not be fetched: ${why}`, { param });
}

function tooLarge(param: string, maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `The ${param} is larger than ${maxBytes} bytes.`, { param });
}

/** Which URLs may be fetched at all (before any connection): `parameter_invalid` naming the problem, or the URL. */
export function checkFetchableUrl(param: string, raw: string): URL {
  const checked = checkHttpUrl(raw);
  if (checked instanceof URL) return checked;
  throw errors.invalid(param, checked.message);
}

function toFetchError(param: string, error: unknown, host: string, signal?: AbortSignal): ApiError {
  if (error instanceof ApiError) return error;
  // A body cut by the caller's abort surfaces as a reset connection.
  if (signal?.aborted) return new ApiError('request_canceled_or_timed_out', 'The fetch was cancelled.');
  const unreachable = unreachableReason(host, error);
  if (unreachable) return fetchRefused(param, `${unreachable}.`);
  if (error instanceof HttpTimeout) {
    const seconds = error.ms / 1000;
    if (error.phase === 'overall') return fetchRefused(param, `the download took longer than ${seconds} s.`);
    return fetchRefused(param, error.phase === 'body' ? `the download stalled for ${seconds} s.` : `no answer within ${seconds} s.`);
  }
  if (error instanceof TooManyRedirects) return fetchRefused(param, `more than ${error.max} redirects.`);
  const e = error as NodeJS.ErrnoException;
  // Refused or reset connections are the URL's problem; say which (the code, not the message, which
  // may name an address).
  return fetchRefused(param, e.code ? `the connection failed (${e.code}).` : 'the connection failed.');
}

/**
 * Opens a URL under the policy, following redirects (each checked again), and returns the body as a
 * stream that times out when it stalls. A declared length over `maxBytes` is refused here
 * (`payload_too_large`); a body without one is bounded by whoever reads it (fetchBytes does).
 */
export async function openUrl(raw: string, param: string, policy: FetchPolicy, signal?: AbortSignal): Promise<Readable> {
  let response: OutboundResponse;
  const url = checkFetchableUrl(param, raw);
  const host = hostOf(url);
  try {
    response = await send({
      url,
      headers: { 'user-agent': 'vus-fetch/1' },
      guard: new AddressGuard(allowListOfHosts(policy.allowHosts)),
      deadlines: { connectMs: policy.idleTimeoutMs, idleMs: policy.idleTimeoutMs, overallMs: policy.overallTimeoutMs },
      redirects: { max: policy.maxRedirects, check: (url) => checkFetchableUrl(param, url.toString()) },
      signal,
    });
  } catch (error) {
    throw toFetchError(param, error, host, signal);
  }
  const { status, body } = response;
  if (status < 200 || status >= 300) {
    body.destroy();
    throw fetchRefused(param, `the server answered HTTP ${status}.`);
  }
  const length = Number(headerValue(response.headers, 'content-length') || NaN);
  if (Number.isFinite(length) && length > policy.maxBytes) {
    body.destroy();
    throw tooLarge(param, policy.maxBytes);
  }
  // The body's errors in this module's terms (a stalled or too slow download says so); a reader
  // that gives up releases the connection.
  const tooSlow = () =>
    fetchRefused(param, `the download was slower than ${policy.minBytesPerSecond} bytes/s over ${policy.rateWindowMs / 1000} s.`);
  const out = rateFloor(policy.minBytesPerSecond, policy.rateWindowMs, tooSlow);
  body.on('error', (error) => out.destroy(toFetchError(param, response.explain(error), host, signal)));
  out.on('close', () => body.destroy());
  return body.pipe(out);
}

/**
 * A pass-through that fails with `tooSlow()` when fewer than `minBytesPerSecond` arrive on average
 * over a window of `windowMs` (each window on its own; 0 turns the floor off). A window in which
 * the reader held the stream back (its buffer full) does not count: that slowness is the reader's.
 */
function rateFloor(minBytesPerSecond: number, windowMs: number, tooSlow: () => Error): Transform {
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const floor = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(null, chunk);
    },
  });
  if (minBytesPerSecond > 0 && windowMs > 0) {
    const needed = (minBytesPerSecond * windowMs) / 1000;
    timer = setInterval(() => {
      const heldBack = floor.readableLength > 0 || floor.writableNeedDrain;
      if (received < needed && !heldBack) floor.destroy(tooSlow());
      received = 0;
    }, windowMs);
    timer.unref();
    floor.on('close', () => clearInterval(timer));
    floor.on('end', () => clearInterval(timer));
  }
  return floor;
}

/** A small resource (an image, a transcription file) read whole, within `maxBytes`. */
export async function fetchBytes(raw: string, param: string, policy: FetchPolicy, signal?: AbortSignal): Promise<Buffer> {
  const body = await openUrl(raw, param, policy, signal);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > policy.maxBytes) {
        body.destroy();
        throw tooLarge(param, policy.maxBytes);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw toFetchError(param, error, hostOf(new URL(raw.trim())), signal);
  }
  return Buffer.concat(chunks);
}

/** A small text resource (a transcription file) read whole, within `maxBytes`. */
export async function fetchText(raw: string, param: string, policy: FetchPolicy, signal?: AbortSignal): Promise<string> {
  return (await fetchBytes(raw, param, policy, signal)).toString('utf8');
}

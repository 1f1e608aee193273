import { ApiError, errors } from '@vus/core';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { allowListOfHosts } from './addresses';
import { AddressGuard, SsrfRefused } from './guard';
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
  maxRedirects: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = {
  allowHosts: [],
  maxBytes: 2 * 1024 ** 3,
  idleTimeoutMs: 30_000,
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

function request(url: URL, param: string, guard: AddressGuard, policy: FetchPolicy, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  const hostname = hostOf(url);
  if (guard.refuseLiteral(hostname)) return Promise.reject(fetchRefused(param, `${hostname} is a private or reserved address.`));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, { lookup: guard.lookupFor(hostname), agent: false, signal, headers: { 'user-agent': 'vus-fetch/1' } }, resolve);
    req.setTimeout(policy.idleTimeoutMs, () => req.destroy(fetchRefused(param, `no answer within ${policy.idleTimeoutMs / 1000} s.`)));
    req.on('error', (error) => reject(toFetchError(param, error, signal)));
  });
}

function toFetchError(param: string, error: unknown, signal?: AbortSignal): ApiError {
  if (error instanceof ApiError) return error;
  // A body cut by the caller's abort surfaces as a reset connection.
  if (signal?.aborted) return new ApiError('request_canceled_or_timed_out', 'The fetch was cancelled.');
  if (error instanceof SsrfRefused) {
    return fetchRefused(param, `${error.hostname} resolves only to private or reserved addresses (${error.address} is ${error.why}).`);
  }
  const e = error as NodeJS.ErrnoException;
  // DNS failures and refused connections are the URL's problem; say which.
  return fetchRefused(param, e.code ? `${e.code}${e.message ? ` (${e.message})` : ''}.` : String(e.message ?? e));
}

/**
 * Opens a URL under the policy, following redirects (each checked again), and returns the body as a
 * stream that times out when it stalls. A declared length over `maxBytes` is refused here
 * (`payload_too_large`); a body without one is bounded by whoever reads it (fetchBytes does).
 */
export async function openUrl(raw: string, param: string, policy: FetchPolicy, signal?: AbortSignal): Promise<Readable> {
  const guard = new AddressGuard(allowListOfHosts(policy.allowHosts));
  let url = checkFetchableUrl(param, raw);
  for (let redirects = 0; ; redirects++) {
    const response = await request(url, param, guard, policy, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (redirects >= policy.maxRedirects) throw fetchRefused(param, `more than ${policy.maxRedirects} redirects.`);
      url = checkFetchableUrl(param, new URL(response.headers.location, url).toString());
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw fetchRefused(param, `the server answered HTTP ${status}.`);
    }
    const length = Number(response.headers['content-length']);
    if (Number.isFinite(length) && length > policy.maxBytes) {
      response.destroy();
      throw tooLarge(param, policy.maxBytes);
    }
    response.setTimeout(policy.idleTimeoutMs, () => response.destroy(fetchRefused(param, `the download stalled for ${policy.idleTimeoutMs / 1000} s.`)));
    return response;
  }
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
    throw toFetchError(param, error, signal);
  }
  return Buffer.concat(chunks);
}

/** A small text resource (a transcription file) read whole, within `maxBytes`. */
export async function fetchText(raw: string, param: string, policy: FetchPolicy, signal?: AbortSignal): Promise<string> {
  return (await fetchBytes(raw, param, policy, signal)).toString('utf8');
}

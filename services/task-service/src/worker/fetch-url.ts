import { ApiError } from '@vus/core';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { forbiddenReason } from '../webhooks/ssrf';

/**
 * Fetching a user's URL from inside the cluster, with the rules of a public service (no SSRF):
 * http and https only; the host's addresses are resolved once and checked, and the connection goes
 * to the checked address (no DNS rebinding between check and connect); loopback, private,
 * link-local, CGNAT, multicast and reserved ranges are refused unless the host is allow-listed
 * (tests serve fixtures on 127.0.0.1); every redirect is checked again; time and size are bounded.
 */
export interface FetchPolicy {
  /** Host names or IP literals exempt from the address rules (FETCH_ALLOW_HOSTS). */
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

/**
 * True for addresses a public service must not connect to on a user's behalf: the same ranges as
 * webhooks (one list, webhooks/ssrf.ts), IPv4 hidden in IPv6 forms included.
 */
export function isBlockedAddress(address: string): boolean {
  return forbiddenReason(address) !== undefined;
}

export function fetchRefused(param: string, why: string): ApiError {
  return new ApiError('parameter_invalid', `The ${param} could not be fetched: ${why}`, { param });
}

/** Which URLs may be fetched at all (before any connection): http(s), no credentials. */
export function checkFetchableUrl(param: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fetchRefused(param, 'it is not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fetchRefused(param, 'only http and https URLs are fetched.');
  if (url.username || url.password) throw fetchRefused(param, 'URLs with credentials are not fetched.');
  return url;
}

/** A DNS lookup that refuses blocked addresses, so the socket connects only to a checked one. */
function guardedLookup(param: string, allowed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const usable = allowed ? addresses : addresses.filter((a) => !isBlockedAddress(a.address));
      if (usable.length === 0) {
        return callback(fetchRefused(param, `${hostname} resolves only to private or reserved addresses.`), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

function isAllowListed(url: URL, policy: FetchPolicy): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return policy.allowHosts.some((h) => h.toLowerCase() === host);
}

function request(url: URL, param: string, policy: FetchPolicy, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  const allowed = isAllowListed(url, policy);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !allowed && isBlockedAddress(literal)) {
    return Promise.reject(fetchRefused(param, `${literal} is a private or reserved address.`));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, { lookup: guardedLookup(param, allowed), signal, headers: { 'user-agent': 'vus-indexer/1' } }, resolve);
    req.setTimeout(policy.idleTimeoutMs, () => req.destroy(fetchRefused(param, `no answer within ${policy.idleTimeoutMs / 1000} s.`)));
    req.on('error', (error) => reject(toFetchError(param, error)));
  });
}

function toFetchError(param: string, error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as NodeJS.ErrnoException;
  if (e.name === 'AbortError') return new ApiError('request_canceled_or_timed_out', 'The fetch was cancelled.');
  // DNS failures and refused connections are the URL's problem; say which.
  return fetchRefused(param, e.code ? `${e.code}${e.message ? ` (${e.message})` : ''}.` : String(e.message ?? e));
}

/**
 * Opens a URL under the policy, following redirects (each checked again), and returns the body as a
 * stream that fails with `payload_too_large` past `maxBytes` and times out when it stalls.
 */
export async function openUrl(raw: string, param: string, policy: FetchPolicy, signal?: AbortSignal): Promise<Readable> {
  let url = checkFetchableUrl(param, raw);
  for (let redirects = 0; ; redirects++) {
    const response = await request(url, param, policy, signal);
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
      throw new ApiError('payload_too_large', `The ${param} is larger than ${policy.maxBytes} bytes.`);
    }
    response.setTimeout(policy.idleTimeoutMs, () => response.destroy(fetchRefused(param, `the download stalled for ${policy.idleTimeoutMs / 1000} s.`)));
    return response;
  }
}

/** A small text resource (a transcription file) read whole, within `maxBytes`. */
export async function fetchText(raw: string, param: string, policy: FetchPolicy, signal?: AbortSignal): Promise<string> {
  const body = await openUrl(raw, param, policy, signal);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > policy.maxBytes) {
      body.destroy();
      throw new ApiError('payload_too_large', `The ${param} is larger than ${policy.maxBytes} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

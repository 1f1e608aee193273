/**
 * @vus/fetch — every outbound HTTP request this server makes, through one client (`send`, on
 * undici: connect/idle/overall deadlines, redirects checked hop by hop, one retry policy). URLs its
 * users chose (a video or transcription URL, a query image, a webhook receiver) go under one set of
 * rules: http(s) only, no credentials, never a private, loopback, link-local or reserved address
 * unless allow-listed, checked at connect time. The operator's own URLs (import providers) go
 * without the address rules.
 *
 * ```ts
 * const image = await fetchBytes(url, 'query_media_url', { ...DEFAULT_FETCH_POLICY, maxBytes: 5 * 1024 ** 2 });
 * const answer = await send({ url, method: 'POST', body, guard, deadlines: { connectMs: 5_000, idleMs: 5_000, overallMs: 10_000 } });
 * ```
 */
export { allowListOfHosts, EMPTY_ALLOW_LIST, forbiddenReason, parseAllowList, type AllowList } from './addresses';
export { AddressGuard, SsrfRefused, systemResolver, unreachableReason, type Resolver } from './guard';
export { checkHttpUrl, FETCHABLE_SCHEMES, hostOf, type UrlProblem } from './url';
export { checkFetchableUrl, DEFAULT_FETCH_POLICY, fetchBytes, fetchRefused, fetchText, openUrl, type FetchPolicy } from './fetch';
export {
  headerValue,
  HttpTimeout,
  NO_RETRY,
  send,
  TooManyRedirects,
  type Deadlines,
  type OutboundRequest,
  type OutboundResponse,
  type RedirectPolicy,
  type RetryPolicy,
} from './client';

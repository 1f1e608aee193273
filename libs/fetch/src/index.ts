/**
 * @vus/fetch — requests this server makes to URLs its users chose (a video or transcription URL,
 * a query image, a webhook receiver), under one set of rules: http(s) only, no credentials, never
 * a private, loopback, link-local or reserved address unless allow-listed, checked at connect time.
 *
 * ```ts
 * const image = await fetchBytes(url, 'query_media_url', { ...DEFAULT_FETCH_POLICY, maxBytes: 5 * 1024 ** 2 });
 * ```
 */
export { allowListOfHosts, EMPTY_ALLOW_LIST, forbiddenReason, parseAllowList, type AllowList } from './addresses';
export { AddressGuard, SsrfRefused, systemResolver, unreachableReason, type Resolver } from './guard';
export { checkHttpUrl, FETCHABLE_SCHEMES, hostOf, type UrlProblem } from './url';
export { checkFetchableUrl, DEFAULT_FETCH_POLICY, fetchBytes, fetchRefused, fetchText, openUrl, type FetchPolicy } from './fetch';
export { headerValue, HttpTimeout, NO_RETRY, send, TooManyRedirects, type Deadlines, type OutboundRequest, type OutboundResponse, type RedirectPolicy, type RetryPolicy } from './client';

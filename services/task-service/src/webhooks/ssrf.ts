import { ApiError } from '@vus/core';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Server-side request forgery guard for webhook URLs. A webhook makes this server send requests to
 * an address a customer chose; without a guard that address could be the cloud metadata service,
 * a database on the private network, or this host itself. Every address a request would connect
 * to is checked: at registration (all addresses the name resolves to), and at delivery through the
 * socket's own `lookup`, so a DNS answer that changed since registration (rebinding) or a redirect
 * to another host is caught at connect time, not before it.
 */

/** Ranges no webhook may reach unless allow-listed: private, loopback, link-local, metadata, reserved. */
const FORBIDDEN: readonly [range: string, prefix: number, family: 'ipv4' | 'ipv6', why: string][] = [
  ['0.0.0.0', 8, 'ipv4', 'a "this network" address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT address (cloud metadata lives here on some providers)'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata service)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol address'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'the unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
];

/** Why an address is refused, or undefined when it is a public address. */
export function forbiddenReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  // IPv4-mapped (::ffff:10.0.0.1) and NAT64 (64:ff9b::a00:1) forms hide an IPv4 address.
  const embedded = embeddedIpv4(address);
  if (embedded) return forbiddenReason(embedded);
  for (const [range, prefix, rangeFamily, why] of FORBIDDEN) {
    const list = new BlockList();
    list.addSubnet(range, prefix, rangeFamily);
    if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return why;
  }
  return undefined;
}

function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** Where webhooks may go besides the public internet: tests and on-premise receivers. */
export interface WebhookAllowList {
  /** Host names (lower case) allowed whatever they resolve to. */
  hosts: ReadonlySet<string>;
  /** Address ranges allowed even though private. */
  ranges: BlockList;
  /** The setting as given, for messages. */
  source: string;
}

/**
 * Parses `WEBHOOK_ALLOWED_HOSTS`: comma-separated host names and CIDR ranges (or single
 * addresses), e.g. `localhost, 10.20.0.0/16, 192.168.1.7`. Empty: public addresses only.
 */
export function parseAllowList(setting: string | undefined): WebhookAllowList {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  for (const raw of (setting ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [address, prefix] = entry.split('/');
    const family = isIP(address!);
    if (family === 0) {
      if (prefix !== undefined) throw new Error(`WEBHOOK_ALLOWED_HOSTS: "${raw.trim()}" is not a CIDR range`);
      hosts.add(entry);
      continue;
    }
    const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      throw new Error(`WEBHOOK_ALLOWED_HOSTS: "${raw.trim()}" has a bad prefix length`);
    }
    ranges.addSubnet(address!, bits, family === 4 ? 'ipv4' : 'ipv6');
  }
  return { hosts, ranges, source: setting ?? '' };
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** The guard's rules: what is allowed, and how names resolve (injectable for tests). */
export class AddressGuard {
  constructor(
    readonly allowList: WebhookAllowList = parseAllowList(undefined),
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** Why connecting to `address` for `hostname` is refused, or undefined when allowed. */
  refusal(hostname: string, address: string): string | undefined {
    if (this.allowList.hosts.has(hostname.toLowerCase())) return undefined;
    const family = isIP(address);
    if (family !== 0 && this.allowList.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6')) return undefined;
    const why = forbiddenReason(address);
    return why && `${hostname} resolves to ${address}, ${why}`;
  }

  /**
   * Checks a webhook URL: scheme, and every address its host has now. Throws `parameter_invalid`
   * naming the problem (registration), or returns the parsed URL.
   */
  async checkUrl(raw: string, param = 'url'): Promise<URL> {
    const url = parseWebhookUrl(raw, param);
    const hostname = hostOf(url);
    let addresses: string[];
    if (isIP(hostname)) addresses = [hostname];
    else {
      try {
        addresses = (await this.resolve(hostname)).map((a) => a.address);
      } catch {
        throw refused(param, `The host ${hostname} could not be resolved.`);
      }
    }
    for (const address of addresses) {
      const why = this.refusal(hostname, address);
      if (why) throw refused(param, `Webhooks cannot be sent to private, loopback, link-local or metadata addresses: ${why}.`);
    }
    return url;
  }

  /**
   * A `lookup` for http.request: resolves like the system, then refuses the connection if the
   * address it would use is forbidden. This is what makes the guard hold at connect time.
   */
  lookupFor(hostname: string): LookupFunction {
    return (host, options, callback) => {
      this.resolve(host).then(
        (addresses) => {
          const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
          const first = wanted[0];
          if (!first) return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), '', 0);
          const why = this.refusal(hostname, first.address);
          if (why) return callback(new SsrfRefused(why), '', 0);
          if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
          callback(null, first.address, first.family);
        },
        (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
      );
    };
  }
}

/** A delivery refused by the guard: not retried, the destination is not acceptable. */
export class SsrfRefused extends Error {
  readonly code = 'ESSRF';
  constructor(why: string) {
    super(`refused: ${why}`);
  }
}

export const WEBHOOK_SCHEMES = ['http:', 'https:'];

/** Parses a webhook URL: absolute, http or https, no credentials. */
export function parseWebhookUrl(raw: string, param = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused(param, 'It must be an absolute http or https URL.');
  }
  if (!WEBHOOK_SCHEMES.includes(url.protocol)) {
    throw refused(param, `The scheme ${url.protocol} is not allowed; use http or https.`);
  }
  if (url.username || url.password) throw refused(param, 'Credentials in the URL are not allowed; verify the signature instead.');
  return url;
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function refused(param: string, why: string): ApiError {
  return new ApiError('parameter_invalid', `The ${param} parameter is invalid. ${why}`, { param });
}

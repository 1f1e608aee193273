import { BlockList, isIP } from 'node:net';

/**
 * The one list of addresses this server never connects to on a user's behalf (a webhook receiver,
 * a video URL, a query image): without it a URL could reach the cloud metadata service, a database
 * on the private network, or this host itself.
 */
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
  // IPv4-compatible (::a.b.c.d, deprecated): some stacks still route them to the IPv4 address inside.
  ['::', 96, 'ipv6', 'an IPv4-compatible address (deprecated)'],
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

/** Destinations allowed besides the public internet: tests and on-premise servers. */
export interface AllowList {
  /** Host names or IP literals (lower case), as written in a URL, allowed whatever they resolve to. */
  hosts: ReadonlySet<string>;
  /** Address ranges allowed even though forbidden, whichever name led there. */
  ranges: BlockList;
  /** The setting as given, for messages. */
  source: string;
}

/** Public addresses only. */
export const EMPTY_ALLOW_LIST: AllowList = { hosts: new Set(), ranges: new BlockList(), source: '' };

/**
 * Parses a setting of comma-separated host names and CIDR ranges (or single addresses), e.g.
 * `localhost, 10.20.0.0/16, 192.168.1.7` (WEBHOOK_ALLOWED_HOSTS). An address here is a range: any
 * name resolving to it is allowed. Empty: public addresses only.
 */
export function parseAllowList(setting: string | undefined, settingName = 'the allow list'): AllowList {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  for (const raw of (setting ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [address, prefix] = entry.split('/');
    const family = isIP(address!);
    if (family === 0) {
      if (prefix !== undefined) throw new Error(`${settingName}: "${raw.trim()}" is not a CIDR range`);
      hosts.add(entry);
      continue;
    }
    const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      throw new Error(`${settingName}: "${raw.trim()}" has a bad prefix length`);
    }
    ranges.addSubnet(address!, bits, family === 4 ? 'ipv4' : 'ipv6');
  }
  return { hosts, ranges, source: setting ?? '' };
}

/**
 * An allow list of hosts only, matched against the URL's host as written (FETCH_ALLOW_HOSTS):
 * allowing `127.0.0.1` allows `http://127.0.0.1/…`, not a name that happens to resolve there.
 */
export function allowListOfHosts(hosts: readonly string[]): AllowList {
  const clean = hosts
    .map((h) =>
      h
        .trim()
        .replace(/^\[(.*)\]$/, '$1')
        .toLowerCase(),
    )
    .filter(Boolean);
  return { hosts: new Set(clean), ranges: new BlockList(), source: clean.join(',') };
}

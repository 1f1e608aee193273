import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { EMPTY_ALLOW_LIST, forbiddenReason, type AllowList } from './addresses';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/**
 * A connection the guard refused: the destination is not acceptable, retrying cannot help. Its
 * message is safe to show (see unreachableReason); `address` and `why` are for logs.
 */
export class SsrfRefused extends Error {
  readonly code = 'ESSRF';
  constructor(
    readonly hostname: string,
    readonly address: string,
    /** Which forbidden range the address is in. */
    readonly why: string,
  ) {
    super(`refused: ${isIP(hostname) !== 0 ? `${hostname} is ${why}` : noPublicAddress(hostname)}`);
  }
}

/** Resolver failures: the name has no address (now). */
const DNS_FAILURES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'EAI_NODATA',
  'ENODATA',
  'ESERVFAIL',
  'ENONAME',
  'ETIMEOUT',
]);

const noPublicAddress = (hostname: string) => `${hostname} does not resolve to a public address`;

/**
 * What a user may be told when a destination cannot be used, or undefined for other errors. An IP
 * literal is refused with its range ("10.1.2.3 is a private address"). A name gets one answer
 * whether it resolves to a forbidden address or does not resolve at all, and never the address:
 * told apart, they let anyone map the internal DNS (which names exist, where they point).
 */
export function unreachableReason(hostname: string, error: unknown): string | undefined {
  if (error instanceof SsrfRefused) return error.message.slice('refused: '.length);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && DNS_FAILURES.has(code)) return noPublicAddress((error as { hostname?: string }).hostname ?? hostname);
  return undefined;
}

/**
 * Server-side request forgery guard: every address a request would connect to is checked, through
 * the socket's own `lookup`, so a DNS answer that changed since an earlier check (rebinding) or a
 * redirect to another host is caught at connect time, not before it. Requests made with it need a
 * fresh connection (`agent: false`): a pooled socket would skip the check.
 */
export class AddressGuard {
  constructor(
    readonly allowList: AllowList = EMPTY_ALLOW_LIST,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** Why connecting to `address` for `hostname` is refused (the forbidden range), or undefined when allowed. */
  refusal(hostname: string, address: string): string | undefined {
    if (this.allowList.hosts.has(hostname.toLowerCase())) return undefined;
    const family = isIP(address);
    if (family !== 0 && this.allowList.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6')) return undefined;
    return forbiddenReason(address);
  }

  /** Node skips `lookup` for a URL host that is an IP literal: the refusal for it, checked here. */
  refuseLiteral(hostname: string): SsrfRefused | undefined {
    if (isIP(hostname) === 0) return undefined;
    const why = this.refusal(hostname, hostname);
    return why ? new SsrfRefused(hostname, hostname, why) : undefined;
  }

  /**
   * Checks every address the host has now (e.g. when a URL is registered, long before it is used):
   * rejects with SsrfRefused for a forbidden one, or with the resolver's error when it has none.
   */
  async checkHost(hostname: string): Promise<void> {
    const literal = this.refuseLiteral(hostname);
    if (literal) throw literal;
    if (isIP(hostname) !== 0) return;
    for (const { address } of await this.resolve(hostname)) {
      const why = this.refusal(hostname, address);
      if (why) throw new SsrfRefused(hostname, address, why);
    }
  }

  /**
   * A `lookup` for http.request: resolves like the system, keeps only allowed addresses, and fails
   * with SsrfRefused when none is left. This is what makes the guard hold at connect time.
   */
  lookupFor(hostname: string): LookupFunction {
    return (host, options, callback) => {
      this.resolve(host).then(
        (addresses) => {
          const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
          const first = wanted[0];
          if (!first) return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND', hostname: host }), '', 0);
          const usable = wanted.filter((a) => this.refusal(hostname, a.address) === undefined);
          if (usable.length === 0) return callback(new SsrfRefused(hostname, first.address, this.refusal(hostname, first.address)!), '', 0);
          if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
          callback(null, usable[0]!.address, usable[0]!.family);
        },
        (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
      );
    };
  }
}

import {
  AddressGuard,
  allowListOfHosts,
  checkHttpUrl,
  forbiddenReason,
  parseAllowList,
  SsrfRefused,
  unreachableReason,
  type Resolver,
} from '@vus/fetch';

describe('forbiddenReason', () => {
  it.each([
    ['10.1.2.3', 'a private address'],
    ['172.31.255.1', 'a private address'],
    ['192.168.0.10', 'a private address'],
    ['127.0.0.1', 'a loopback address'],
    ['169.254.169.254', 'a link-local address (cloud metadata service)'],
    ['100.100.100.200', 'a carrier-grade NAT address (cloud metadata lives here on some providers)'],
    ['100.64.0.1', 'a carrier-grade NAT address (cloud metadata lives here on some providers)'],
    ['0.0.0.0', 'a "this network" address'],
    ['224.0.0.1', 'a multicast address'],
    ['::', 'the unspecified address'],
    ['::1', 'a loopback address'],
    ['fe80::1', 'a link-local address'],
    ['fd00:ec2::254', 'a private (unique local) address'],
    ['::ffff:10.0.0.1', 'a private address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address (cloud metadata service)'],
    ['::127.0.0.1', 'an IPv4-compatible address (deprecated)'],
    ['::7f00:1', 'an IPv4-compatible address (deprecated)'],
    ['::a9fe:a9fe', 'an IPv4-compatible address (deprecated)'],
    ['0:0:0:0:0:0:808:808', 'an IPv4-compatible address (deprecated)'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s (%s)', (address, why) => {
    expect(forbiddenReason(address)).toBe(why);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(forbiddenReason(address)).toBeUndefined();
    },
  );
});

describe('checkHttpUrl', () => {
  it.each([
    ['file:///etc/passwd', 'scheme', 'The scheme file: is not allowed; use http or https.'],
    ['gopher://example.com/', 'scheme', 'The scheme gopher: is not allowed; use http or https.'],
    ['javascript:alert(1)', 'scheme', 'The scheme javascript: is not allowed; use http or https.'],
    ['not a url', 'not-absolute', 'It must be an absolute http or https URL.'],
    ['https://user:pw@example.com/', 'credentials', 'Credentials in the URL are not allowed.'],
  ])('refuses %s', (raw, kind, message) => {
    expect(checkHttpUrl(raw)).toEqual({ kind, message });
  });

  it.each(['http://example.com/a.mp4', ' https://[2606:4700::1]:8443/x?y=1 '])('accepts %s', (raw) => {
    expect(checkHttpUrl(raw)).toBeInstanceOf(URL);
  });
});

describe('allow lists', () => {
  it('parses host names and CIDR ranges, and refuses malformed entries naming the setting', () => {
    const list = parseAllowList(' LocalHost, 10.20.0.0/16 ,192.168.1.7', 'WEBHOOK_ALLOWED_HOSTS');
    expect([...list.hosts]).toEqual(['localhost']);
    expect(list.ranges.check('10.20.3.4', 'ipv4')).toBe(true);
    expect(list.ranges.check('192.168.1.7', 'ipv4')).toBe(true);
    expect(list.ranges.check('192.168.1.8', 'ipv4')).toBe(false);
    expect(() => parseAllowList('localhost/8', 'WEBHOOK_ALLOWED_HOSTS')).toThrow(
      'WEBHOOK_ALLOWED_HOSTS: "localhost/8" is not a CIDR range',
    );
    expect(() => parseAllowList('10.0.0.0/40')).toThrow('bad prefix length');
  });

  it('keeps host-only lists as hosts (an IP literal is matched as written, not as a range)', () => {
    const list = allowListOfHosts([' 127.0.0.1 ', '[::1]', '']);
    expect([...list.hosts]).toEqual(['127.0.0.1', '::1']);
    expect(list.ranges.check('127.0.0.1', 'ipv4')).toBe(false);
  });
});

describe('AddressGuard', () => {
  const fakeDns =
    (answers: Record<string, string[]>): Resolver =>
    async (host) => {
      const addresses = answers[host];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  const lookup = (guard: AddressGuard, host: string, options: { family?: number; all?: boolean } = {}) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guard.lookupFor(host)(host, options, (error, address) => resolve({ error, address })),
    );

  it('checks every address the host has now', async () => {
    const guard = new AddressGuard(
      parseAllowList(''),
      fakeDns({ 'public.test': ['93.184.216.34'], 'mixed.test': ['93.184.216.34', '10.0.0.7'] }),
    );
    await expect(guard.checkHost('public.test')).resolves.toBeUndefined();
    await expect(guard.checkHost('mixed.test')).rejects.toThrow(new SsrfRefused('mixed.test', '10.0.0.7', 'a private address'));
    await expect(guard.checkHost('169.254.169.254')).rejects.toThrow(
      'refused: 169.254.169.254 is a link-local address (cloud metadata service)',
    );
    await expect(guard.checkHost('::1')).rejects.toThrow('a loopback address');
    await expect(guard.checkHost('nowhere.test')).rejects.toThrow('ENOTFOUND');
  });

  it('honours the allow list: host names whatever they resolve to, and address ranges', async () => {
    const guard = new AddressGuard(
      parseAllowList(' localhost, 10.20.0.0/16 ,192.168.1.7'),
      fakeDns({ localhost: ['127.0.0.1'], 'onprem.test': ['10.20.3.4'] }),
    );
    await expect(guard.checkHost('localhost')).resolves.toBeUndefined();
    await expect(guard.checkHost('onprem.test')).resolves.toBeUndefined();
    await expect(guard.checkHost('192.168.1.7')).resolves.toBeUndefined();
    await expect(guard.checkHost('192.168.1.8')).rejects.toThrow('a private address');
    await expect(guard.checkHost('127.0.0.1')).rejects.toThrow('a loopback address');
  });

  it('checks the address at connect time, so a DNS answer that changed is caught', async () => {
    const answers: Record<string, string[]> = { 'rebind.test': ['93.184.216.34'] };
    const guard = new AddressGuard(parseAllowList(''), fakeDns(answers));
    await guard.checkHost('rebind.test');
    answers['rebind.test'] = ['10.0.0.5'];
    expect((await lookup(guard, 'rebind.test')).error).toMatchObject({
      hostname: 'rebind.test',
      address: '10.0.0.5',
      why: 'a private address',
    });
  });

  it('connects only to allowed addresses when a name has both kinds, in the family asked for', async () => {
    const guard = new AddressGuard(parseAllowList(''), fakeDns({ 'mixed.test': ['10.0.0.7', '93.184.216.34', 'fd00::1', '2606:4700::1'] }));
    expect(await lookup(guard, 'mixed.test')).toEqual({ error: null, address: '93.184.216.34' });
    expect(await lookup(guard, 'mixed.test', { family: 6 })).toEqual({ error: null, address: '2606:4700::1' });
    expect(await lookup(guard, 'mixed.test', { all: true })).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
  });

  it('tells a user the same about a name resolving to a forbidden address and a name that does not resolve, never the address', async () => {
    const guard = new AddressGuard(parseAllowList(''), fakeDns({ 'db.internal': ['10.0.3.4'] }));
    const refused = await guard.checkHost('db.internal').catch((error: unknown) => error);
    const missing = await guard.checkHost('nothing.internal').catch((error: unknown) => error);
    expect(unreachableReason('db.internal', refused)).toBe('db.internal does not resolve to a public address');
    expect(unreachableReason('nothing.internal', missing)).toBe('nothing.internal does not resolve to a public address');
    expect(String((refused as Error).message)).not.toContain('10.0.3.4');
    expect(unreachableReason('x', new Error('something else'))).toBeUndefined();
  });

  it('refuses literal addresses itself (node skips lookup for them)', () => {
    const guard = new AddressGuard(allowListOfHosts(['127.0.0.1']));
    expect(guard.refuseLiteral('127.0.0.1')).toBeUndefined();
    expect(guard.refuseLiteral('127.0.0.2')?.message).toBe('refused: 127.0.0.2 is a loopback address');
    expect(guard.refuseLiteral('example.com')).toBeUndefined();
  });
});

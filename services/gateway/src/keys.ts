import { ApiError, errors, isId, newId, type Clock } from '@vus/core';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Organizations and API keys: the gateway's own domain. */
export interface Organization {
  id: string;
  name: string;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  prefix: string;
  name: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface KeyStore {
  insertOrganization(org: Organization): Promise<void>;
  findOrganizationByName(name: string): Promise<Organization | undefined>;
  getOrganization(id: string): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;
  insertKey(key: ApiKeyRecord, keyHash: string): Promise<void>;
  listKeys(orgId: string): Promise<ApiKeyRecord[]>;
  /** The organization of an active key with this hash. */
  findActiveKeyOrg(keyHash: string): Promise<string | undefined>;
  revokeKey(id: string, at: Date): Promise<boolean>;
  hasKeyHash(keyHash: string): Promise<boolean>;
}

const KEY_PREFIX = 'tlk_';

/** A new secret: `tlk_` + 32 url-safe characters (192 random bits). */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time equality of two secrets of any length (compares fixed-size digests). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * What key lists show for an operator-supplied key: a fingerprint of its hash, none of its
 * characters. A generated key shows `tlk_` and 4 of its 32 random characters; a supplied key is
 * often a chosen phrase, whose first characters say much about the rest.
 */
export function suppliedKeyPrefix(key: string): string {
  return `sha256:${hashApiKey(key).slice(0, 8)}`;
}

/** Keys supplied by an operator (VUS_BOOTSTRAP_API_KEY) must at least be long and printable. */
export function validateSuppliedKey(key: string): string {
  if (!/^[\x21-\x7e]{16,256}$/.test(key)) {
    throw errors.invalid('key', 'A supplied API key must be 16 to 256 printable ASCII characters without spaces.');
  }
  return key;
}

export interface KeyServiceOptions {
  /**
   * How long a valid key is remembered without asking the database (every request
   * authenticates). A revocation reaches other gateway replicas within this time; 0 turns it off.
   */
  authCacheMs?: number;
}

const AUTH_CACHE_MAX_ENTRIES = 10_000;

export function createKeyService(store: KeyStore, clock: Clock, options: KeyServiceOptions = {}) {
  const authCacheMs = options.authCacheMs ?? 5_000;
  const authCache = new Map<string, { orgId: string; until: number }>();
  /** The organization, or the API's not-found error. */
  const requireOrganization = async (id: string): Promise<Organization> => {
    const org = isId(id) ? await store.getOrganization(id) : undefined;
    if (!org) throw errors.notFound('Organization', id);
    return org;
  };
  const issue = async (orgId: string, name: string | null, supplied?: string) => {
    const secret = supplied ?? generateApiKey();
    const record: ApiKeyRecord = {
      id: newId(clock.now()),
      orgId,
      prefix: supplied === undefined ? secret.slice(0, 8) : suppliedKeyPrefix(supplied),
      name,
      createdAt: clock.now(),
      revokedAt: null,
    };
    await store.insertKey(record, hashApiKey(secret));
    return { record, secret };
  };

  return {
    async authenticate(key: string | undefined): Promise<string> {
      if (!key) throw new ApiError('api_key_invalid', 'No API key was provided. Send your key in the x-api-key header.');
      const hash = hashApiKey(key);
      const now = clock.now().getTime();
      const cached = authCache.get(hash);
      if (cached && cached.until > now) return cached.orgId;
      const orgId = await store.findActiveKeyOrg(hash);
      if (!orgId) throw new ApiError('api_key_invalid', 'The API key is invalid or has been revoked.');
      if (authCacheMs > 0) {
        if (authCache.size >= AUTH_CACHE_MAX_ENTRIES) authCache.clear();
        authCache.set(hash, { orgId, until: now + authCacheMs });
      }
      return orgId;
    },

    async createOrganization(rawName: string): Promise<Organization> {
      const name = rawName.trim();
      if (!name) throw errors.notProvided('name');
      if (await store.findOrganizationByName(name)) {
        throw new ApiError('parameter_invalid', `An organization named "${name}" already exists.`, { param: 'name' });
      }
      const org = { id: newId(clock.now()), name, createdAt: clock.now() };
      await store.insertOrganization(org);
      return org;
    },

    findOrganizationByName: (name: string) => store.findOrganizationByName(name),
    requireOrganization,
    listOrganizations: () => store.listOrganizations(),

    async createKey(orgId: string, name: string | null, secret?: string) {
      await requireOrganization(orgId);
      return issue(orgId, name, secret);
    },

    async listKeys(orgId: string): Promise<ApiKeyRecord[]> {
      if (!isId(orgId) || !(await store.getOrganization(orgId))) throw errors.notFound('Organization', orgId);
      return store.listKeys(orgId);
    },

    async revokeKey(id: string): Promise<void> {
      if (!isId(id) || !(await store.revokeKey(id, clock.now()))) throw errors.notFound('API key', id);
      // This replica forgets at once; the others within authCacheMs.
      authCache.clear();
    },

    /**
     * Embedded first start: make sure one organization and one key exist. Returns the secret of a
     * key generated now (to print once); undefined when nothing had to be done, and for the
     * operator's own key (VUS_BOOTSTRAP_API_KEY): they have it, and printed it would land in logs.
     */
    async bootstrap(suppliedKey: string | undefined): Promise<string | undefined> {
      const supplied = suppliedKey === undefined ? undefined : validateSuppliedKey(suppliedKey);
      if (supplied && (await store.hasKeyHash(hashApiKey(supplied)))) return undefined;
      const orgs = await store.listOrganizations();
      if (orgs.length > 0 && !supplied) return undefined;
      const org = orgs[0] ?? (await this.createOrganization('default'));
      const { secret } = await issue(org.id, 'bootstrap', supplied);
      return supplied === undefined ? secret : undefined;
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;

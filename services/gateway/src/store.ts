import type { Database } from '@vus/db';
import type { ApiKeyRecord, KeyStore, Organization } from './keys';

interface OrgRow {
  id: string;
  name: string;
  created_at: Date;
  [column: string]: unknown;
}

interface KeyRow {
  id: string;
  org_id: string;
  prefix: string;
  name: string | null;
  created_at: Date;
  revoked_at: Date | null;
  [column: string]: unknown;
}

const toOrg = (row: OrgRow): Organization => ({ id: row.id, name: row.name, createdAt: row.created_at });
const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  orgId: row.org_id,
  prefix: row.prefix,
  name: row.name,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

export function createKeyStore(db: Database): KeyStore {
  return {
    async insertOrganization(org) {
      await db.query('INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)', [org.id, org.name, org.createdAt]);
    },
    async findOrganizationByName(name) {
      const { rows } = await db.query<OrgRow>('SELECT id, name, created_at FROM organizations WHERE name = $1', [name]);
      return rows[0] && toOrg(rows[0]);
    },
    async getOrganization(id) {
      const { rows } = await db.query<OrgRow>('SELECT id, name, created_at FROM organizations WHERE id = $1', [id]);
      return rows[0] && toOrg(rows[0]);
    },
    async listOrganizations() {
      const { rows } = await db.query<OrgRow>('SELECT id, name, created_at FROM organizations ORDER BY created_at, id');
      return rows.map(toOrg);
    },
    async insertKey(key, keyHash) {
      await db.query(`INSERT INTO api_keys (id, org_id, key_hash, prefix, name, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
        key.id,
        key.orgId,
        keyHash,
        key.prefix,
        key.name,
        key.createdAt,
      ]);
    },
    async listKeys(orgId) {
      const { rows } = await db.query<KeyRow>(
        'SELECT id, org_id, prefix, name, created_at, revoked_at FROM api_keys WHERE org_id = $1 ORDER BY created_at, id',
        [orgId],
      );
      return rows.map(toKey);
    },
    async findActiveKeyOrg(keyHash) {
      const { rows } = await db.query<{ org_id: string }>('SELECT org_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [
        keyHash,
      ]);
      return rows[0]?.org_id;
    },
    async revokeKey(id, at) {
      const result = await db.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, at]);
      return result.rowCount === 1;
    },
    async hasKeyHash(keyHash) {
      const { rows } = await db.query('SELECT 1 FROM api_keys WHERE key_hash = $1', [keyHash]);
      return rows.length > 0;
    },
  };
}

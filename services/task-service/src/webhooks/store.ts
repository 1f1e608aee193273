import { SecretBox } from '@vus/core';
import type { Database, Queryable } from '@vus/db';
import { enqueueJob } from '@vus/jobs';
import {
  MAX_ENDPOINTS_PER_ORG,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
  type WebhookEventType,
  type WebhookStore,
} from './webhooks';

/** An endpoint's and a delivery's fields, read straight from the columns (the names are the mapping). */
const ENDPOINT_FIELDS = 'id, org_id AS "orgId", url, event_types AS "eventTypes", secret, created_at AS "createdAt"';
const DELIVERY_FIELDS = `id, endpoint_id AS "endpointId", org_id AS "orgId", event_id AS "eventId", event_type AS "eventType", body, status,
  attempts, last_response_status AS "lastResponseStatus", last_error AS "lastError", next_attempt_at AS "nextAttemptAt",
  created_at AS "createdAt", delivered_at AS "deliveredAt"`;

/** Rows as records (pg's rows are records of anything); an endpoint's secret is still as stored. */
type EndpointRow = WebhookEndpointRecord & Record<string, unknown>;
type DeliveryRow = WebhookDeliveryRecord & Record<string, unknown>;

/**
 * How signing secrets are kept in webhook_endpoints: sealed under WEBHOOK_SECRET_KEY (a SecretBox),
 * or, without a key, as they are. The service must read them back to sign, so they are encrypted
 * rather than hashed.
 */
export type SecretKeeper = Pick<SecretBox, 'seal' | 'open'>;

export const UNSEALED: SecretKeeper = {
  seal: (secret) => secret,
  open: (stored) => {
    if (SecretBox.isSealed(stored))
      throw new Error('The webhook signing secrets are encrypted and WEBHOOK_SECRET_KEY is not set: set the key they were encrypted with.');
    return stored;
  },
};

/** The endpoint with its secret opened (stored sealed when a key is configured). */
function withOpenSecret(row: EndpointRow, secrets: SecretKeeper): WebhookEndpointRecord {
  return { ...row, secret: secrets.open(row.secret) };
}

/**
 * Encrypts the signing secrets stored before encryption was configured (one UPDATE per row, each
 * only if still unsealed: replicas doing it at once do not double-seal). Returns how many.
 */
export async function sealStoredSecrets(db: Database, secrets: SecretBox): Promise<number> {
  const { rows } = await db.query<{ id: string; secret: string }>(
    "SELECT id, secret FROM webhook_endpoints WHERE secret NOT LIKE 'aesgcm1:%'",
  );
  let sealed = 0;
  for (const row of rows.filter((r) => !SecretBox.isSealed(r.secret))) {
    const result = await db.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1 AND secret = $3', [
      row.id,
      secrets.seal(row.secret),
      row.secret,
    ]);
    sealed += result.rowCount ?? 0;
  }
  return sealed;
}

export function createWebhookStore(db: Database, secrets: SecretKeeper = UNSEALED): WebhookStore {
  return {
    async insertEndpoint(e) {
      const result = await db.query(
        `INSERT INTO webhook_endpoints (id, org_id, url, event_types, secret, created_at)
         SELECT $1, $2, $3, $4, $5, $6
         WHERE (SELECT count(*) FROM webhook_endpoints WHERE org_id = $2 AND deleted_at IS NULL) < $7`,
        [e.id, e.orgId, e.url, e.eventTypes, secrets.seal(e.secret), e.createdAt, MAX_ENDPOINTS_PER_ORG],
      );
      return result.rowCount === 1;
    },

    async listEndpoints(orgId, limit, offset) {
      const [page, count] = await Promise.all([
        db.query<EndpointRow>(
          `SELECT ${ENDPOINT_FIELDS} FROM webhook_endpoints WHERE org_id = $1 AND deleted_at IS NULL
           ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
          [orgId, limit, offset],
        ),
        db.query<{ total: string }>('SELECT count(*) AS total FROM webhook_endpoints WHERE org_id = $1 AND deleted_at IS NULL', [orgId]),
      ]);
      return { rows: page.rows.map((row) => withOpenSecret(row, secrets)), total: Number(count.rows[0]?.total ?? 0) };
    },

    async deleteEndpoint(orgId, id, at) {
      return db.withTx(async (tx) => {
        const result = await tx.query('UPDATE webhook_endpoints SET deleted_at = $3 WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [
          orgId,
          id,
          at,
        ]);
        if (result.rowCount !== 1) return false;
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was deleted', next_attempt_at = NULL
           WHERE endpoint_id = $1 AND status = 'pending'`,
          [id],
        );
        return true;
      });
    },

    async endpointExists(orgId, id) {
      const { rowCount } = await db.query('SELECT 1 FROM webhook_endpoints WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [
        orgId,
        id,
      ]);
      return rowCount === 1;
    },

    async listDeliveries(orgId, endpointId, statuses, limit, offset) {
      const where = 'org_id = $1 AND endpoint_id = $2 AND (cardinality($3::text[]) = 0 OR status = ANY($3::text[]))';
      const [page, count] = await Promise.all([
        db.query<DeliveryRow>(
          `SELECT ${DELIVERY_FIELDS} FROM webhook_deliveries WHERE ${where}
           ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
          [orgId, endpointId, statuses, limit, offset],
        ),
        db.query<{ total: string }>(`SELECT count(*) AS total FROM webhook_deliveries WHERE ${where}`, [orgId, endpointId, statuses]),
      ]);
      return { rows: page.rows, total: Number(count.rows[0]?.total ?? 0) };
    },

    async endpointsOf(tx, orgId) {
      const { rows } = await tx.query<EndpointRow>(
        `SELECT ${ENDPOINT_FIELDS} FROM webhook_endpoints WHERE org_id = $1 AND deleted_at IS NULL`,
        [orgId],
      );
      return rows.map((row) => withOpenSecret(row, secrets));
    },

    async isKnowledgeStoreIndex(tx, orgId, indexId) {
      const { rowCount } = await tx.query('SELECT 1 FROM knowledge_stores WHERE org_id = $1 AND index_id = $2', [orgId, indexId]);
      return (rowCount ?? 0) > 0;
    },

    async insertDeliveries(tx: Queryable, deliveries) {
      let inserted = 0;
      for (const d of deliveries) {
        const result = await tx.query(
          `INSERT INTO webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, body, status, next_attempt_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)
           ON CONFLICT (endpoint_id, event_id, event_type) DO NOTHING`,
          [d.id, d.endpointId, d.orgId, d.eventId, d.eventType, d.body, d.nextAttemptAt, d.createdAt],
        );
        if (result.rowCount !== 1) continue;
        // Its job (libs/jobs) sends it: committed with the delivery.
        await enqueueJob(tx, { kind: WEBHOOK_DELIVERY_JOB, subjectId: d.id, orgId: d.orgId, runAt: d.nextAttemptAt ?? d.createdAt });
        inserted++;
      }
      return inserted;
    },
  };
}

/** The job (libs/jobs) that sends one delivery: queued with it, retried by the queue. */
export const WEBHOOK_DELIVERY_JOB = 'webhook-delivery';

/** A delivery due to be sent, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  eventType: WebhookEventType;
  body: string;
  attempts: number;
  url: string;
  secret: string;
}

/** The dispatcher's queries: the delivery its job is about, and what each attempt did. */
export function createDispatchStore(db: Database, secrets: SecretKeeper = UNSEALED) {
  return {
    /** The delivery with its endpoint, while it is still to be sent; undefined once sent or failed for good. */
    async load(id: string): Promise<ClaimedDelivery | undefined> {
      const { rows } = await db.query<ClaimedDelivery & Record<string, unknown>>(
        `SELECT d.id, d.event_type AS "eventType", d.body, d.attempts, e.url, e.secret
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.id = $1 AND d.status = 'pending'`,
        [id],
      );
      const r = rows[0];
      return r && { ...r, secret: secrets.open(r.secret) };
    },

    async recordSuccess(id: string, status: number, at: Date): Promise<void> {
      await db.query(
        `UPDATE webhook_deliveries SET status = 'succeeded', attempts = attempts + 1, last_response_status = $2, last_error = '',
           delivered_at = $3, next_attempt_at = NULL
         WHERE id = $1 AND status = 'pending'`,
        [id, status, at],
      );
    },

    /** A failed attempt: due again at `retryAt`, or failed for good when that is null. */
    async recordFailure(id: string, status: number, error: string, retryAt: Date | null): Promise<void> {
      await db.query(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, last_response_status = $2, last_error = $3,
           status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END, next_attempt_at = $4
         WHERE id = $1 AND status = 'pending'`,
        [id, status, error.slice(0, 1000), retryAt],
      );
    },
  };
}

export type DispatchStore = ReturnType<typeof createDispatchStore>;

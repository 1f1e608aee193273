import type { Database } from '@vus/db';
import type { UsageStore } from './embed';

/** The usage ledger (migrations/0001). */
export function createUsageStore(db: Database): UsageStore {
  return {
    async record(orgId, usage) {
      await db.query('INSERT INTO embedding_usage (org_id, model_name, input_type, media_seconds) VALUES ($1, $2, $3, $4)', [
        orgId,
        usage.modelName,
        usage.inputType,
        usage.mediaSeconds,
      ]);
    },
  };
}

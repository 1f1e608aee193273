import { newId } from '@vus/core';
import type { Database } from '@vus/db';
import { enqueueEvents, usageRecorded } from '@vus/events';
import type { UsageStore } from './embed';
import { embeddingUsage } from './usage';

/** The usage ledger (migrations/0001); each row's usage goes out through the outbox with it. */
export function createUsageStore(db: Database, eventsWritten: () => void = () => undefined): UsageStore {
  return {
    async record(orgId, usage) {
      const at = new Date();
      await db.withTx(async (tx) => {
        await tx.query(
          'INSERT INTO embedding_usage (org_id, model_name, input_type, media_seconds, created_at) VALUES ($1, $2, $3, $4, $5)',
          [orgId, usage.modelName, usage.inputType, usage.mediaSeconds, at],
        );
        await enqueueEvents(
          tx,
          embeddingUsage(usage, `embedding:${newId(at)}`, at).map((u) => usageRecorded(orgId, u)),
        );
      });
      eventsWritten();
    },
  };
}

import type { Database } from '@vus/db';
import { enqueueEvents, usageRecorded } from '@vus/events';
import type { GenerationRecord, GenerationStore } from './analyze';

/** Generation records in analyze-service's own database; their usage goes out through its outbox. */
export function createGenerationStore(
  db: Database,
  eventsWritten: () => void = () => undefined,
): GenerationStore & { byId(orgId: string, id: string): Promise<GenerationRecord | undefined> } {
  return {
    async record(g, usage) {
      await db.withTx(async (tx) => {
        await tx.query(
          `INSERT INTO generations (id, org_id, video_id, index_id, kind, provider, prompt, output, output_tokens, finish_reason, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [
            g.id,
            g.orgId,
            g.videoId,
            g.indexId,
            g.kind,
            g.provider,
            g.prompt,
            g.output,
            g.outputTokens,
            g.finishReason,
            g.status,
            g.createdAt,
          ],
        );
        await enqueueEvents(
          tx,
          usage.map((u) => usageRecorded(g.orgId, u)),
        );
      });
      if (usage.length > 0) eventsWritten();
    },
    async byId(orgId, id) {
      const { rows } = await db.query<{
        id: string;
        org_id: string;
        video_id: string;
        index_id: string;
        kind: GenerationRecord['kind'];
        provider: string;
        prompt: string;
        output: string;
        output_tokens: number;
        finish_reason: GenerationRecord['finishReason'];
        status: GenerationRecord['status'];
        created_at: Date;
      }>('SELECT * FROM generations WHERE org_id = $1 AND id = $2', [orgId, id]);
      const r = rows[0];
      return (
        r && {
          id: r.id,
          orgId: r.org_id,
          videoId: r.video_id,
          indexId: r.index_id,
          kind: r.kind,
          provider: r.provider,
          prompt: r.prompt,
          output: r.output,
          outputTokens: r.output_tokens,
          finishReason: r.finish_reason,
          status: r.status,
          createdAt: new Date(r.created_at),
        }
      );
    },
  };
}

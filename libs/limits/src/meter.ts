import type { BillingClient } from './billing-client';
import type { UsageCounters } from './counters';
import type { LimitsSource } from './plans';
import type { Category } from './policy';

/**
 * Metering of what is known only after the request was admitted: seconds of media once probed,
 * output tokens once generated. Each debit lowers the organization's budgets and is reported to
 * billing-service as spend under an idempotency key (a retried report counts once).
 */
export class Meter {
  constructor(
    private readonly counters: UsageCounters,
    private readonly limits: LimitsSource,
    private readonly billing: Pick<BillingClient, 'recordSpend'>,
  ) {}

  /**
   * A probed video or audio: refused with the 429 form when it is longer than the minutes left
   * in any duration window, else debited and reported.
   */
  async reserveMediaSeconds(orgId: string, category: Category, seconds: number, idempotencyKey: string): Promise<void> {
    await this.counters.reserve(orgId, category, 'duration', seconds, await this.limits.limitsFor(orgId));
    await this.recordMediaSpend(orgId, seconds, idempotencyKey);
  }

  /**
   * The spend of a media reservation alone (idempotent by key), for a caller that cannot tell
   * whether an interrupted reservation got as far as reporting it: the counters are not touched.
   */
  async recordMediaSpend(orgId: string, seconds: number, idempotencyKey: string): Promise<void> {
    await this.billing.recordSpend(orgId, { idempotencyKey, unitKind: 'video_second', quantity: seconds, occurredAt: new Date() });
  }

  /** Output tokens of a generation that has run: debited whatever is left, and reported. */
  async debitOutputTokens(orgId: string, category: Category, tokens: number, idempotencyKey: string): Promise<void> {
    await this.counters.debit(orgId, category, 'output_token', tokens, await this.limits.limitsFor(orgId));
    await this.billing.recordSpend(orgId, { idempotencyKey, unitKind: 'output_token', quantity: tokens, occurredAt: new Date() });
  }
}

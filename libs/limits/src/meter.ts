import type { UsageCounters } from './counters';
import type { LimitsSource } from './plans';
import type { Category, DimensionKind } from './policy';

/** A budget a usage is debited from: seconds of media (DPH/DPD) or output tokens (TPM/TPD). */
export type BudgetKind = Exclude<DimensionKind, 'request'>;

/**
 * Debits of the budgets known only after a request was admitted (seconds of media once probed,
 * output tokens once generated) from the counters the gateway admits requests with. The gateway
 * counts requests; billing-service runs this Meter as it records usage (it owns each
 * organization's limits), so producers of usage never touch the counters themselves.
 */
export class Meter {
  constructor(
    private readonly counters: UsageCounters,
    private readonly limits: LimitsSource,
  ) {}

  /**
   * A probed video or audio: refused with the 429 form when it is longer than the minutes left
   * in any duration window of the category, else debited.
   */
  async reserveMediaSeconds(orgId: string, category: Category, seconds: number): Promise<void> {
    await this.counters.reserve(orgId, category, 'duration', seconds, await this.limits.limitsFor(orgId));
  }

  /** What a request used, once known: debited whatever is left (the request already ran). */
  async debit(orgId: string, category: Category, kind: BudgetKind, units: number): Promise<void> {
    await this.counters.debit(orgId, category, kind, units, await this.limits.limitsFor(orgId));
  }
}

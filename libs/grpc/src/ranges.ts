import type { Bounds } from '@vus/core';
import type { NumberRange } from './generated/vus/common/v1/NumberRange';
import type { TimeRange } from './generated/vus/common/v1/TimeRange';
import { fromTimestamp } from './timestamps';

/** A proto NumberRange (common.proto) as bounds; undefined when the request has none. */
export function fromNumberRange(range: NumberRange | null | undefined): Bounds<number> | undefined {
  return range ? { gte: range.gte, lte: range.lte, gt: range.gt, lt: range.lt } : undefined;
}

/** A proto TimeRange (common.proto) as bounds on Dates; undefined when the request has none. */
export function fromTimeRange(range: TimeRange | null | undefined): Bounds<Date> | undefined {
  return range
    ? { gte: fromTimestamp(range.gte), lte: fromTimestamp(range.lte), gt: fromTimestamp(range.gt), lt: fromTimestamp(range.lt) }
    : undefined;
}

/** What every List request can narrow by: ids (none: any), and created_at / updated_at ranges. */
export function fromRecordFilter(request: {
  ids: readonly string[];
  created_at?: TimeRange | null | undefined;
  updated_at?: TimeRange | null | undefined;
}): { ids: string[] | undefined; createdAt: Bounds<Date> | undefined; updatedAt: Bounds<Date> | undefined } {
  return {
    ids: request.ids.length ? [...request.ids] : undefined,
    createdAt: fromTimeRange(request.created_at),
    updatedAt: fromTimeRange(request.updated_at),
  };
}

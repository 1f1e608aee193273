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

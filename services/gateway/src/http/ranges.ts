import { errors } from '@vus/core';
import { toTimestamp } from '@vus/grpc';
import type { NumberRange__Input } from '@vus/grpc/types/common/v1/NumberRange';
import type { TimeRange__Input } from '@vus/grpc/types/common/v1/TimeRange';
import { range, timeBounds, type RawQuery } from './query';

/** `name=date` or `name[op]=date` (under any alias) as a proto TimeRange; null when absent. */
export function parseTimeRange(name: string, query: RawQuery, ...aliases: string[]): TimeRange__Input | null {
  const raw = range(query, name, ...aliases);
  if (!raw) return null;
  const parsed = timeBounds(raw);
  if ('invalid' in parsed) throw errors.invalid(name, `"${parsed.invalid}" is not a date.`);
  const { gte, lte, gt, lt } = parsed.bounds;
  const ts = (d: Date | undefined) => (d ? toTimestamp(d) : null);
  return { gte: ts(gte), lte: ts(lte), gt: ts(gt), lt: ts(lt) };
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** `name=n` (exactly n) or `name[op]=n` as a proto NumberRange; null when absent. */
export function parseNumberRange(name: string, query: RawQuery): NumberRange__Input | null {
  const raw = range(query, name);
  if (!raw) return null;
  const result: NumberRange__Input = {};
  for (const [op, value] of Object.entries(raw)) {
    if (!NUMBER.test(value.trim())) throw errors.invalid(name, `"${value}" is not a number.`);
    const n = Number(value);
    if (op === 'eq') {
      result.gte = n;
      result.lte = n;
    } else {
      result[op as 'gte' | 'lte' | 'gt' | 'lt'] = n;
    }
  }
  return result;
}

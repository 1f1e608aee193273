import type { Timestamp, Timestamp__Input } from './generated/google/protobuf/Timestamp';

/** Timestamps become Dates at the edge of every handler and client (never passed inward raw). */
export function toTimestamp(date: Date): Timestamp__Input {
  const ms = date.getTime();
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}

export function fromTimestamp(ts: Timestamp | null | undefined): Date | undefined {
  if (!ts) return undefined;
  return new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1_000_000));
}

export function optionalTimestamp(date: Date | null | undefined): Timestamp__Input | null {
  return date ? toTimestamp(date) : null;
}

/** The source of "now", injected so that time-dependent rules can be tested. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** RFC 3339 in UTC with milliseconds, the form every SDK parses (API-CONTRACT §2.4). */
export function toIso(date: Date): string {
  return date.toISOString();
}

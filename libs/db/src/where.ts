import type { Bounds } from '@vus/core';

const BOUND_OPERATORS = [
  ['gte', '>='],
  ['lte', '<='],
  ['gt', '>'],
  ['lt', '<'],
] as const;

/**
 * A parameterised WHERE clause built one condition at a time: every value becomes the next `$n`
 * placeholder, and the conditions are joined with AND. The one way stores turn a list filter into
 * SQL, so that no value is ever written into the text.
 *
 * ```ts
 * const where = new Where().add((p) => `org_id = ${p}`, orgId).bounds('created_at', filter.createdAt);
 * db.query(`SELECT … WHERE ${where.sql} LIMIT ${where.param(limit)}`, where.params);
 * ```
 */
export class Where {
  readonly params: unknown[] = [];
  private readonly conditions: string[] = [];

  /** A placeholder for `value`, for use inside a condition or after the clause (LIMIT, OFFSET). */
  param(value: unknown): string {
    return `$${this.params.push(value)}`;
  }

  /** Adds `condition`, written around the placeholder of its value. */
  add(condition: (placeholder: string) => string, value: unknown): this {
    this.conditions.push(condition(this.param(value)));
    return this;
  }

  /** Adds `column >= gte`, `column <= lte`, `column > gt`, `column < lt` for the bounds given. */
  bounds<T>(column: string, bounds: Bounds<T> | undefined): this {
    for (const [key, operator] of BOUND_OPERATORS) {
      const value = bounds?.[key];
      if (value !== undefined && value !== null) this.add((p) => `${column} ${operator} ${p}`, value);
    }
    return this;
  }

  /** The conditions joined with AND; TRUE when there is none. */
  get sql(): string {
    return this.conditions.length > 0 ? this.conditions.join(' AND ') : 'TRUE';
  }
}

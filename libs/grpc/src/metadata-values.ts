import { errors } from '@vus/core';
import type { MetadataValue, MetadataValue__Input } from './generated/vus/common/v1/MetadataValue';

/** A user-metadata value as TypeScript sees it; null means "delete this key" on updates. */
export type PlainMetadataValue = string | number | boolean | null;

/** User-metadata maps cross gRPC as `map<string, MetadataValue>`; these convert at the edges. */
export function toMetadataValues(values: Readonly<Record<string, PlainMetadataValue>>): Record<string, MetadataValue__Input> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, toMetadataValue(value)]));
}

export function toMetadataValue(value: PlainMetadataValue): MetadataValue__Input {
  if (value === null) return { null_value: true };
  if (typeof value === 'string') return { string_value: value };
  if (typeof value === 'number') return { number_value: value };
  return { bool_value: value };
}

/** Undefined for a value with no kind set (a sender bug); the caller decides how to refuse it. */
export function fromMetadataValue(value: MetadataValue): PlainMetadataValue | undefined {
  switch (value.kind) {
    case 'string_value':
      return value.string_value ?? '';
    case 'number_value':
      return value.number_value ?? 0;
    case 'bool_value':
      return value.bool_value ?? false;
    case 'null_value':
      return null;
    default:
      return undefined;
  }
}

export function fromMetadataValues(values: Readonly<Record<string, MetadataValue>>): Record<string, PlainMetadataValue | undefined> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, fromMetadataValue(value)]));
}

/**
 * A user-metadata map from the wire as plain values, refusing (an invalid `<param>.<key>`) a value
 * with no kind (a sender bug) and, unless `allowNull` (an update's "delete this key"), null.
 */
export function plainMetadataValues(
  param: string,
  values: Readonly<Record<string, MetadataValue>>,
  options: { allowNull: true },
): Record<string, PlainMetadataValue>;
export function plainMetadataValues(
  param: string,
  values: Readonly<Record<string, MetadataValue>>,
  options: { allowNull: false },
): Record<string, Exclude<PlainMetadataValue, null>>;
export function plainMetadataValues(
  param: string,
  values: Readonly<Record<string, MetadataValue>>,
  { allowNull }: { allowNull: boolean },
): Record<string, PlainMetadataValue> {
  const plain = fromMetadataValues(values);
  for (const [key, value] of Object.entries(plain)) {
    if (value === undefined) throw errors.invalid(`${param}.${key}`, 'The value has no kind.');
    if (value === null && !allowNull) throw errors.invalid(`${param}.${key}`, 'null is not allowed here.');
  }
  return plain as Record<string, PlainMetadataValue>;
}

/**
 * How big and how deep a parsed JSON value is, measured without recursion: JSON.parse accepts a
 * value nested 20,000 levels deep, and every recursive walk of it (JSON.stringify, a validator's
 * compiler) then overflows the stack. Measure first, refuse what is past the limits, then walk.
 */
export interface JsonShape {
  /** Values counted (objects, arrays and scalars; keys are not values). */
  nodes: number;
  /** Levels of nesting: a scalar is 1, `{"a":1}` is 2. */
  depth: number;
}

/**
 * The shape of `value`; counting stops as soon as it passes `stopPast` (a hostile value costs no
 * more than the limit to measure), so a result over a limit is only "over", not the exact size.
 */
export function jsonShape(value: unknown, stopPast: Partial<JsonShape> = {}): JsonShape {
  const maxNodes = stopPast.nodes ?? Infinity;
  const maxDepth = stopPast.depth ?? Infinity;
  const shape: JsonShape = { nodes: 0, depth: 0 };
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, level] = pending.pop()!;
    shape.nodes += 1;
    if (level > shape.depth) shape.depth = level;
    if (shape.nodes > maxNodes || shape.depth > maxDepth) return shape;
    if (item !== null && typeof item === 'object') {
      for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, level + 1]);
    }
  }
  return shape;
}

/**
 * Limits on a `response_format` JSON schema, as the gateway and analyze-service both check them:
 * past these, compiling or walking the schema costs more than one request may (ajv's compile time
 * grows with its nodes; recursion with its depth).
 */
export const RESPONSE_SCHEMA_LIMITS = {
  /** Its JSON text (a larger schema is not a response format but a payload). */
  bytes: 64 * 1024,
  /** Values in it (each keyword's value, property schemas, enum members …). */
  nodes: 2000,
  /** Nesting of its JSON (about two levels per nested object schema: properties, then the property). */
  depth: 64,
} as const;

/**
 * `response_format: {type: "json_schema", json_schema}`: the caller's schema, checked to be a
 * JSON schema (draft-07 by ajv), and the check every provider's answer must pass.
 *
 * One caller's schema must not cost the others: each is measured before it is compiled (node
 * count and depth: ajv's compile time grows with them, and it recurses), compiled by an Ajv of its
 * own (nothing of it outlives the request, and no `$id` of one organization is seen by another's
 * schema), without ajv's optimizer, its messages or inlined `$ref`s (they multiply the compile
 * time; a `$ref` target inlined at each use is compiled once per use), its patterns run on a
 * linear-time engine with budgets (linear-regexp.ts), and each check has a budget of its own.
 */
import { ApiError, errors, jsonShape, RESPONSE_SCHEMA_LIMITS } from '@vus/core';
import Ajv, { type Options } from 'ajv';
import { linearRegExpEngine, noPatternUsage, PatternBudgetExceeded, PATTERN_LIMITS, type PatternUsage } from './linear-regexp';

/** A larger schema is not a response format but a payload. */
export const MAX_SCHEMA_BYTES = RESPONSE_SCHEMA_LIMITS.bytes;

/**
 * The work of one check: each compiled function's schema size (in values), charged at each call.
 * ajv compiles every `$ref` target to a function of its own (inlineRefs off), so a schema whose
 * `anyOf` options `$ref` the next level — validated in 3^depth calls — meets this at once.
 */
export const CHECK_LIMITS = { steps: 100_000 } as const;

/** What one schema has cost so far: its patterns (PATTERN_LIMITS), and its checks (CHECK_LIMITS). */
export interface SchemaUsage extends PatternUsage {
  checkSteps: number;
}

export interface ResponseSchema {
  readonly schema: object;
  /** Throws when a provider's value does not validate (it must never be returned). */
  check(value: unknown): void;
  readonly usage: Readonly<SchemaUsage>;
}

class CheckBudgetExceeded extends Error {}

/** An Ajv whose compiled functions charge their size to `usage` at every call (see meteredCode). */
class MeteredAjv extends Ajv {
  constructor(
    readonly usage: SchemaUsage,
    options: Options,
  ) {
    super({ ...options, code: { ...options.code, process: meteredCode } });
  }

  chargeCheck(steps: number): void {
    if (this.usage.checkSteps + steps > CHECK_LIMITS.steps) throw new CheckBudgetExceeded();
    this.usage.checkSteps += steps;
  }
}

/** ajv's generated function, starting with a call of `self.chargeCheck` (self: the MeteredAjv). */
function meteredCode(code: string, env?: { schema: unknown }): string {
  const weight = Math.max(1, jsonShape(env?.schema).nodes);
  const metered = code.replace(/return function (\w+)\(([^)]*)\)\{/, (start) => `${start}self.chargeCheck(${weight});`);
  // Fail closed: a newer ajv that writes its functions otherwise must not check without a budget.
  if (metered === code) throw new Error('ajv generated a validation function this server cannot meter');
  return metered;
}

// `strict: false` accepts unknown keywords (descriptions, titles, vendor extensions) as JSON
// Schema does; no logger: ajv would log a failed compile's generated code.
const baseOptions = { strict: false, logger: false, allErrors: false } as const;

// Checks schemas against the draft-07 meta-schema, compiled once: checking a schema keeps nothing of it.
const metaSchemaCheck = new Ajv({ ...baseOptions });

export function compileResponseSchema(text: string): ResponseSchema {
  if (Buffer.byteLength(text) > MAX_SCHEMA_BYTES)
    throw errors.invalid('response_format', `The JSON schema is larger than ${MAX_SCHEMA_BYTES / 1024} KB.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.invalid('response_format', 'json_schema is not valid JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw errors.invalid('response_format', 'json_schema must be a JSON schema object.');
  checkShape(parsed);
  // A $schema naming a draft ajv does not load would fail to compile; draft-07 rules apply.
  const schema = { ...(parsed as Record<string, unknown>), $schema: undefined };
  if (!metaSchemaCheck.validateSchema(schema))
    throw errors.invalid(
      'response_format',
      `json_schema is not a valid JSON schema: ${metaSchemaCheck.errorsText(metaSchemaCheck.errors)}`,
    );

  const usage: SchemaUsage = { ...noPatternUsage(), checkSteps: 0 };
  const ajv = new MeteredAjv(usage, {
    ...baseOptions,
    validateSchema: false,
    inlineRefs: false,
    messages: false,
    code: { optimize: false, regExp: linearRegExpEngine(usage) },
  });
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    if (error instanceof ApiError || (error instanceof Error && error.message.includes('cannot meter'))) throw error;
    throw errors.invalid('response_format', `json_schema is not a valid JSON schema: ${(error as Error).message}`);
  }
  return {
    schema: parsed,
    usage,
    check(value) {
      let valid: boolean;
      try {
        valid = validate(value);
      } catch (error) {
        if (error instanceof PatternBudgetExceeded)
          throw errors.invalid(
            'response_format',
            `Checking the answer against the json_schema's patterns takes more than ${PATTERN_LIMITS.matchSteps} steps; use fewer or simpler patterns.`,
          );
        if (error instanceof CheckBudgetExceeded)
          throw errors.invalid(
            'response_format',
            `Checking the answer against the json_schema takes more than ${CHECK_LIMITS.steps} steps; use fewer anyOf/oneOf options that $ref deeper schemas.`,
          );
        throw error;
      }
      if (!valid) {
        const first = validate.errors?.[0];
        // ajv writes no messages (messages: false halves its compile time): keyword and parameters say it.
        const why = first ? `${first.instancePath || '/'} fails ${first.keyword} ${JSON.stringify(first.params)}` : 'invalid';
        throw new ApiError('parameter_invalid', `The video's evidence cannot fill the given json_schema (${why}); loosen the schema.`, {
          param: 'response_format',
        });
      }
    },
  };
}

/** Refuses a schema past RESPONSE_SCHEMA_LIMITS before anything walks it recursively. */
function checkShape(schema: object): void {
  const shape = jsonShape(schema, RESPONSE_SCHEMA_LIMITS);
  if (shape.depth > RESPONSE_SCHEMA_LIMITS.depth)
    throw errors.invalid('response_format', `The JSON schema nests deeper than ${RESPONSE_SCHEMA_LIMITS.depth} levels.`);
  if (shape.nodes > RESPONSE_SCHEMA_LIMITS.nodes)
    throw errors.invalid('response_format', `The JSON schema has more than ${RESPONSE_SCHEMA_LIMITS.nodes} values; make it smaller.`);
}

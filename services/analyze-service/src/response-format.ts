/**
 * `response_format: {type: "json_schema", json_schema}`: the caller's schema, checked to be a
 * JSON schema (draft-07 by ajv), and the check every provider's answer must pass.
 */
import { ApiError, errors } from '@vus/core';
import Ajv from 'ajv';

/** A larger schema is not a response format but a payload. */
export const MAX_SCHEMA_BYTES = 64 * 1024;

export interface ResponseSchema {
  readonly schema: object;
  /** Throws when a provider's value does not validate (it must never be returned). */
  check(value: unknown): void;
}

// One instance: compiled schemas are cached by ajv; `strict: false` accepts unknown keywords
// (descriptions, titles, vendor extensions) as JSON Schema does.
const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });

export function compileResponseSchema(text: string): ResponseSchema {
  if (Buffer.byteLength(text) > MAX_SCHEMA_BYTES)
    throw errors.invalid('response_format', `The JSON schema is larger than ${MAX_SCHEMA_BYTES / 1024} KB.`);
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    throw errors.invalid('response_format', 'json_schema is not valid JSON.');
  }
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    throw errors.invalid('response_format', 'json_schema must be a JSON schema object.');
  let validate;
  try {
    // A $schema naming a draft ajv does not load would fail to compile; draft-07 rules apply.
    validate = ajv.compile({ ...(schema as Record<string, unknown>), $schema: undefined });
  } catch (error) {
    throw errors.invalid('response_format', `json_schema is not a valid JSON schema: ${(error as Error).message}`);
  }
  return {
    schema,
    check(value) {
      if (!validate(value)) {
        const first = validate.errors?.[0];
        throw new ApiError(
          'parameter_invalid',
          `The video's evidence cannot fill the given json_schema (${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid'}); loosen the schema.`,
          { param: 'response_format' },
        );
      }
    },
  };
}

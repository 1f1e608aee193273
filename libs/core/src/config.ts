import { z } from 'zod';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Parses the environment once against a schema and returns a frozen, typed config.
 * An empty variable counts as unset (`FOO= cmd` is how shells clear one).
 * On failure the error lists every bad or missing variable, not just the first.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Readonly<z.infer<S>> {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(set);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return Object.freeze(result.data);
}

/** Booleans from env: true/false/1/0/yes/no, case-insensitive. */
export const envBoolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'TRUE', 'FALSE', 'True', 'False', 'YES', 'NO'])
  .transform((v) => ['true', '1', 'yes'].includes(v.toLowerCase()));

export const envPort = z.coerce.number().int().min(0).max(65535);

/** A `host:port` address of a peer gRPC service. */
export const envAddress = z.string().regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port');

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

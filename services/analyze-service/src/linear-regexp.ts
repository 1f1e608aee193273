/**
 * The regular expression engine for a caller's JSON schema (`pattern`, `patternProperties`,
 * `propertyNames`): RE2's (re2js, a pure JavaScript port: no compiler needed, the same on every
 * platform), which matches in time linear in the input — a backtracking engine lets the caller,
 * who picks both the regex and (with `const`) the text, hold the event loop for as long as they
 * like. Linear is not free either: compiling costs about the program's size, and a match about
 * its size times the text's length; both are charged to budgets, per schema.
 */
import { errors } from '@vus/core';
import type { CodeOptions } from 'ajv';
import { RE2JS } from 're2js';

type RegExpEngine = NonNullable<CodeOptions['regExp']>;

export const PATTERN_LIMITS = {
  /** Distinct patterns in one schema: each costs ~0.2 ms to compile and start matching, however small. */
  count: 64,
  /** Characters of one pattern. */
  length: 512,
  /**
   * Program size of one pattern, estimated before it is compiled (see estimatedSize), and of all
   * the patterns of one schema together: compiling takes a few µs per instruction.
   */
  size: 4_000,
  totalSize: 8_000,
  /** Steps of all the matches of one check: a match costs (instructions × (characters + 1)). */
  matchSteps: 2_000_000,
} as const;

/** What one schema's patterns have cost so far. */
export interface PatternUsage {
  patterns: number;
  /** Instructions of the compiled programs. */
  compiledSize: number;
  matchSteps: number;
}

export const noPatternUsage = (): PatternUsage => ({ patterns: 0, compiledSize: 0, matchSteps: 0 });

const quoted = (pattern: string) => JSON.stringify(pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern);

/**
 * An upper bound on a pattern's program size without compiling it: about two instructions a
 * character, times the counted repetitions (`{n}`, `{n,m}`), which copy what they repeat. RE2
 * refuses nested counts whose product passes 1000, so the product is at most that.
 */
export function estimatedSize(pattern: string): number {
  let copies = 1;
  for (const [, min, max] of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) copies = Math.min(1000, copies * Math.max(1, Number(max || min)));
  return 2 * (pattern.length + 1) * copies;
}

const tooLarge = (pattern: string) =>
  errors.invalid(
    'response_format',
    `The pattern ${quoted(pattern)} is too large to run: its repetitions ({n,m}) and length make a program of more than ${PATTERN_LIMITS.size} steps per character, or the schema's patterns together more than ${PATTERN_LIMITS.totalSize}.`,
  );

/** Thrown by a match that would pass PATTERN_LIMITS.matchSteps: the check stops there. */
export class PatternBudgetExceeded extends Error {}

/**
 * An ajv `code.regExp` for one schema: each distinct pattern compiled once with RE2, its size and
 * every match's steps charged to `usage`. A pattern RE2 cannot run (a backreference, lookaround)
 * or one past the limits is a 400 on response_format.
 */
export function linearRegExpEngine(usage: PatternUsage = noPatternUsage()): RegExpEngine {
  const compiled = new Map<string, { test(text: string): boolean; toString(): string }>();
  const engine = (pattern: string) => {
    const known = compiled.get(pattern);
    if (known) return known;
    if (usage.patterns >= PATTERN_LIMITS.count)
      throw errors.invalid('response_format', `The JSON schema has more than ${PATTERN_LIMITS.count} different patterns.`);
    if (pattern.length > PATTERN_LIMITS.length)
      throw errors.invalid('response_format', `The pattern ${quoted(pattern)} is longer than ${PATTERN_LIMITS.length} characters.`);
    const estimate = estimatedSize(pattern);
    if (estimate > PATTERN_LIMITS.size || usage.compiledSize + estimate > PATTERN_LIMITS.totalSize) throw tooLarge(pattern);
    let re: RE2JS;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch (error) {
      throw errors.invalid(
        'response_format',
        `The pattern ${quoted(pattern)} is not supported: patterns run on RE2, in linear time, which has no backreferences and no lookaround (${(error as Error).message}).`,
      );
    }
    const size = (re.re2() as unknown as { numberOfInstructions(): number }).numberOfInstructions();
    if (usage.compiledSize + size > PATTERN_LIMITS.totalSize) throw tooLarge(pattern);
    usage.patterns += 1;
    usage.compiledSize += size;
    const rx = {
      test(text: string): boolean {
        const steps = size * (text.length + 1);
        if (usage.matchSteps + steps > PATTERN_LIMITS.matchSteps) throw new PatternBudgetExceeded();
        usage.matchSteps += steps;
        return re.test(text);
      },
      // ajv keys its compiled patterns by this text: it must tell patterns apart.
      toString: () => `/${pattern}/u`,
    };
    compiled.set(pattern, rx);
    return rx;
  };
  // Only for ajv's standalone code, which this server does not generate.
  return Object.assign(engine, { code: 'undefined' });
}

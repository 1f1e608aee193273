/**
 * Hostile response_format schemas (issue 28, items 1–4 and 11): each attack the review found, as
 * the filler and the compiler meet it. Every one must end in a 400 parameter_invalid on
 * response_format (or a small, valid answer) and cost no more than the budgets allow — never a
 * crash, a stack overflow, a long block of the event loop, or one tenant's schema in another's.
 */
import { ApiError, RESPONSE_SCHEMA_LIMITS } from '@vus/core';
import { PATTERN_LIMITS } from '../src/linear-regexp';
import { CHECK_LIMITS, compileResponseSchema } from '../src/response-format';
import { FILL_LIMITS, fillSchema, noFillUsage, type SchemaContext } from '../src/schema-fill';
import { cookingTimeline } from './fixtures';

/** What the extractive provider gives the filler, made by hand (no WordNet): pure and quick. */
function context(): SchemaContext {
  const timeline = cookingTimeline();
  return {
    timeline,
    gist: { title: 'Tomato Pasta', topics: ['Cooking'], hashtags: ['#pasta'] },
    summary: { summary: 'At 0:05, the speaker says "Today we cook fresh tomato pasta."' },
    chapters: [
      { chapterNumber: 0, start: 0, end: 20, title: 'Tomato Pasta', summary: 'Welcome to my kitchen.' },
      { chapterNumber: 1, start: 20, end: 40, title: 'Boil', summary: 'Boil the pasta for ten minutes.' },
    ],
    highlights: [{ start: 5, end: 9, highlight: 'Fresh tomato pasta', summary: 'Today we cook fresh tomato pasta.' }],
    answer: (question) => `The video does not show or mention "${question}".`,
  };
}

/** The error a call throws (undefined when it returns). */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectRefused(call: () => unknown, message?: RegExp): void {
  const error = thrown(call);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ code: 'parameter_invalid', details: { param: 'response_format' } });
  if (message) expect((error as Error).message).toMatch(message);
}

/** Definitions d0..d{n-1}, each an object whose two properties $ref the next: 2^n values to fill. */
function doublingChain(n: number): object {
  const definitions: Record<string, object> = {};
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? { $ref: `#/definitions/d${i + 1}` } : { type: 'string' };
    definitions[`d${i}`] = { type: 'object', properties: { left: next, right: next } };
  }
  return { definitions, $ref: '#/definitions/d0' };
}

/** `levels` objects nested in each other, as JSON text (JSON.stringify of it would overflow the stack). */
function nested(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

/** Fills and checks as analyze does: compile, fill, check. */
function compileFillCheck(schema: object): unknown {
  const compiled = compileResponseSchema(JSON.stringify(schema));
  const value = fillSchema(compiled.schema, context());
  compiled.check(value);
  return value;
}

describe('the schema filler under attack', () => {
  it.each<[string, object, RegExp]>([
    [
      'minItems 200,000,000 under a property (node died: "invalid size error")',
      { type: 'object', properties: { chapters: { type: 'array', items: { type: 'integer' }, minItems: 200_000_000 } } },
      /minItems/,
    ],
    [
      'minItems 200,000,000 of objects',
      {
        type: 'object',
        properties: {
          chapters: { type: 'array', minItems: 200_000_000, items: { type: 'object', properties: { title: { type: 'string' } } } },
        },
      },
      /minItems/,
    ],
    ['minLength 200,000,000', { type: 'object', properties: { title: { type: 'string', minLength: 200_000_000 } } }, /minLength/],
    ['a $ref chain d0..d21 that doubles at each step (4 million values)', doublingChain(22), /values|steps|longer/],
    ['a schema that is only a $ref to itself', { $ref: '#' }, /\$ref/],
    [
      'two definitions that $ref each other',
      { definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } }, $ref: '#/definitions/a' },
      /\$ref/,
    ],
    [
      'a required self-$ref (no finite value has it)',
      { type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] },
      /\$ref|deep/,
    ],
    [
      'many copies of a large const in a long array',
      {
        type: 'object',
        properties: { chapters: { type: 'array', minItems: 1000, items: { type: 'string', const: 'x'.repeat(50_000) } } },
      },
      /large|long|characters/,
    ],
  ])('refuses %s, within its budgets', (_name, schema, message) => {
    const usage = noFillUsage();
    expectRefused(() => fillSchema(schema, context(), usage), message);
    for (const counter of ['steps', 'nodes', 'depth', 'outputChars', 'questions'] as const) {
      expect(usage[counter]).toBeLessThanOrEqual(FILL_LIMITS[counter]);
    }
  });

  it('asks each open question of the evidence once, and at most FILL_LIMITS.questions of them', () => {
    const asked: string[] = [];
    const ctx = { ...context(), answer: (question: string) => (asked.push(question), 'An answer.') };
    const many = (n: number) => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'string' }])),
    });
    fillSchema({ type: 'array', minItems: 3, items: { type: 'object', properties: { mood: { type: 'string' } } } }, ctx);
    fillSchema({ type: 'object', properties: { a: { $ref: '#/$defs/q' }, b: { $ref: '#/$defs/q' } }, $defs: { q: many(3) } }, ctx);
    expect(asked).toEqual(['q0', 'q1', 'q2']);
    expectRefused(() => fillSchema(many(FILL_LIMITS.questions + 1), ctx), /questions/);
  });

  it('fills a recursive schema (a tree of chapters) to a finite value that validates', () => {
    const schema = {
      $defs: {
        node: { type: 'object', properties: { title: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } },
      },
      type: 'object',
      properties: { chapters: { type: 'array', items: { $ref: '#/$defs/node' } } },
    };
    const value = compileFillCheck(schema) as { chapters: { children: unknown[] }[] };
    expect(value.chapters.length).toBeGreaterThan(0);
    expect(JSON.stringify(value).length).toBeLessThan(100_000);
  });

  it('fills an optional self-$ref as absent', () => {
    expect(compileFillCheck({ type: 'object', properties: { title: { type: 'string' }, child: { $ref: '#' } } })).toEqual({
      title: 'Tomato Pasta',
    });
  });
});

describe('the schema compiler under attack', () => {
  it('a pattern with nested quantifiers and a const that makes it backtrack is refused at once (it took 21 s)', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', const: `${'a'.repeat(31)}!`, pattern: '^(a+)+$' } } };
    const compiled = compileResponseSchema(JSON.stringify(schema));
    expectRefused(() => compiled.check(fillSchema(compiled.schema, context())), /cannot fill/);
    expect(compiled.usage.matchSteps).toBeGreaterThan(0);
    expect(compiled.usage.matchSteps).toBeLessThanOrEqual(PATTERN_LIMITS.matchSteps);
  });

  it('refuses an answer whose patterns would take more than PATTERN_LIMITS.matchSteps to check', () => {
    const text = 'a'.repeat(FILL_LIMITS.stringLength);
    const schema = { type: 'object', properties: { a: { type: 'string', const: text, pattern: '^(.*a){120}$' } } };
    const compiled = compileResponseSchema(JSON.stringify(schema));
    expectRefused(() => compiled.check({ a: text }), /steps/);
    expect(compiled.usage.matchSteps).toBeLessThanOrEqual(PATTERN_LIMITS.matchSteps);
  });

  it.each<[string, string[]]>([
    ['one pattern whose repetitions make a large program', ['(.*a){1000}']],
    ['one pattern over 512 characters', ['x'.repeat(600)]],
    ['many patterns that together make large programs', Array.from({ length: 20 }, (_, i) => `^(x.*${i}){100}$`)],
    ['more than PATTERN_LIMITS.count small patterns', Array.from({ length: PATTERN_LIMITS.count + 1 }, (_, i) => `^p${i}`)],
  ])('refuses %s before compiling it all', (_name, patterns) => {
    const schema = { type: 'object', properties: Object.fromEntries(patterns.map((pattern, i) => [`p${i}`, { type: 'string', pattern }])) };
    expectRefused(() => compileResponseSchema(JSON.stringify(schema)), /pattern/);
  });

  it('refuses a check that anyOf options $ref-ing the next level would make exponential (3^30 calls)', () => {
    const definitions: Record<string, object> = {};
    for (let i = 0; i < 30; i++) {
      const next = i + 1 < 30 ? { $ref: `#/definitions/d${i + 1}` } : { type: 'string', minLength: 3 };
      const option = (extra: object) => ({ type: 'object', properties: { a: next }, required: ['a'], ...extra });
      definitions[`d${i}`] = { anyOf: [option({}), option({ minProperties: 1 }), option({ maxProperties: 3 })] };
    }
    const compiled = compileResponseSchema(JSON.stringify({ definitions, $ref: '#/definitions/d0' }));
    let value: unknown = 'x';
    for (let i = 0; i < 30; i++) value = { a: value };
    expectRefused(() => compiled.check(value), /steps/);
    expect(compiled.usage.checkSteps).toBeLessThanOrEqual(CHECK_LIMITS.steps);
  });

  it.each<[string, object]>([
    [
      'patternProperties',
      { type: 'object', properties: { [`${'a'.repeat(31)}!`]: { const: 1 } }, patternProperties: { '^(a+)+$': { const: 2 } } },
    ],
    ['propertyNames', { type: 'object', properties: { [`${'a'.repeat(31)}!`]: { const: 1 } }, propertyNames: { pattern: '^(a|a)+$' } }],
    [
      'additionalProperties beside patternProperties',
      {
        type: 'object',
        properties: { [`${'a'.repeat(31)}!`]: { const: 1 } },
        patternProperties: { '^(a+)+$': { const: 1 } },
        additionalProperties: false,
      },
    ],
  ])('a backtracking pattern in %s runs in linear time', (_name, schema) => {
    // Valid or refused, but at once: each 31-a key would take seconds on a backtracking engine.
    const error = thrown(() => compileFillCheck(schema));
    if (error !== undefined) expect(error).toMatchObject({ code: 'parameter_invalid', details: { param: 'response_format' } });
  });

  it.each<[string, string]>([
    ['a lookahead', '^(?=a)a$'],
    ['a negative lookahead', '^(?!b)a$'],
    ['a lookbehind', '(?<=a)b'],
    ['a backreference', '^(a)\\1$'],
  ])('refuses a pattern with %s with a clear message', (_name, pattern) => {
    expectRefused(
      () => compileResponseSchema(JSON.stringify({ type: 'string', pattern })),
      /pattern .*(lookaround|backreference|not supported)/i,
    );
  });

  it('accepts the patterns response schemas use', () => {
    const compiled = compileResponseSchema(
      JSON.stringify({
        type: 'object',
        properties: {
          time: { type: 'string', pattern: '^\\d{1,2}:\\d{2}$' },
          slug: { type: 'string', pattern: '^[a-z0-9-]+$' },
          named: { type: 'string', pattern: '^(?<word>\\w+)$' },
          unicode: { type: 'string', pattern: '^\\p{L}+\\u00e9$' },
        },
      }),
    );
    expect(() => compiled.check({ time: '1:05', slug: 'tomato-pasta', named: 'pasta', unicode: 'café' })).not.toThrow();
    expect(() => compiled.check({ time: '1:5', slug: 'tomato-pasta', named: 'pasta', unicode: 'café' })).toThrow(/cannot fill/);
  });

  it('the same $id from two organizations compiles for both, each against its own schema', () => {
    const ofOrgA = { $id: 'https://example.com/answer.json', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const ofOrgB = { $id: 'https://example.com/answer.json', type: 'object', properties: { s: { type: 'string' } }, required: ['s'] };
    const a = compileResponseSchema(JSON.stringify(ofOrgA));
    const b = compileResponseSchema(JSON.stringify(ofOrgB));
    expect(() => a.check({ n: 1 })).not.toThrow();
    expect(() => b.check({ s: 'x' })).not.toThrow();
    expect(() => b.check({ n: 1 })).toThrow(/cannot fill/);
  });

  it("a $ref to another organization's $id does not resolve (it validated against that tenant's schema)", () => {
    compileResponseSchema(JSON.stringify({ $id: 'https://org-a.example/secret.json', type: 'integer', maximum: 3 }));
    expectRefused(() => compileResponseSchema(JSON.stringify({ $ref: 'https://org-a.example/secret.json' })), /resolve|reference/i);
  });

  it.each<[string, () => string, RegExp]>([
    ['5,000 levels of nesting (ajv recursed until the stack broke)', () => `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, /deep|levels/],
    ['200 levels of nesting', () => nested(200), /deep|levels/],
    [
      'a 60 KB schema of 2,000 properties',
      () =>
        JSON.stringify({
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }])),
        }),
      /values|large/,
    ],
  ])('refuses %s before compiling it', (_name, text, message) => {
    expectRefused(() => compileResponseSchema(text()), message);
  });

  it('compiles a schema just within RESPONSE_SCHEMA_LIMITS', () => {
    const properties = Object.fromEntries(
      Array.from({ length: (RESPONSE_SCHEMA_LIMITS.nodes - 3) / 3 }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }]),
    );
    expect(() => compileResponseSchema(JSON.stringify({ type: 'object', properties }))).not.toThrow();
  });
});

import { jsonShape } from '../src/json-shape';

describe('jsonShape', () => {
  it.each<[string, unknown, { nodes: number; depth: number }]>([
    ['a scalar', 1, { nodes: 1, depth: 1 }],
    ['null', null, { nodes: 1, depth: 1 }],
    ['an empty object', {}, { nodes: 1, depth: 1 }],
    ['an object of two scalars', { a: 1, b: 'x' }, { nodes: 3, depth: 2 }],
    ['an array in an object', { a: [1, [2]] }, { nodes: 5, depth: 4 }],
  ])('measures %s', (_name, value, shape) => expect(jsonShape(value)).toEqual(shape));

  it('measures 100,000 levels of nesting without recursion', () => {
    const text = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    expect(jsonShape(JSON.parse(text))).toEqual({ nodes: 100_001, depth: 100_001 });
  });

  it('stops counting just past a limit', () => {
    const wide = Array.from({ length: 10_000 }, (_, i) => i);
    expect(jsonShape(wide, { nodes: 10 }).nodes).toBe(11);
    expect(jsonShape({ a: { b: { c: { d: 1 } } } }, { depth: 2 }).depth).toBe(3);
  });
});

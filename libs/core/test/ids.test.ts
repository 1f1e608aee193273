import { isId, newId } from '../src';

describe('newId', () => {
  it('makes 24 lowercase hex characters', () => {
    for (let i = 0; i < 100; i++) expect(newId()).toMatch(/^[0-9a-f]{24}$/);
  });

  it('starts with the creation time in seconds, so ids sort by creation', () => {
    const at = new Date('2024-05-06T07:08:09Z');
    expect(parseInt(newId(at).slice(0, 8), 16)).toBe(at.getTime() / 1000);
    expect(newId(new Date('2024-01-01Z')) < newId(new Date('2025-01-01Z'))).toBe(true);
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId()));
    expect(ids.size).toBe(10_000);
  });
});

describe('isId', () => {
  it.each([
    ['6528dde58f9cd95a98cbd075', true],
    ['6528DDE58F9CD95A98CBD075', false],
    ['6528dde58f9cd95a98cbd07', false],
    ['6528dde58f9cd95a98cbd0755', false],
    ['zz28dde58f9cd95a98cbd075', false],
    ['', false],
    [undefined, false],
    [123, false],
  ])('%p → %p', (value, expected) => {
    expect(isId(value)).toBe(expected);
  });
});

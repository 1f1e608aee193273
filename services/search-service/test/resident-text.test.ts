/**
 * The resident index's readers of PostgreSQL's text forms (tsvector, phrase tsquery) and its
 * chaining of per-word phrases, as tables of cases.
 */
import { chainPhrases } from '../src/resident/resident-indexes';
import { rankAnd, rankOr } from '../src/resident/text-rank';
import { packPosition, parsePhraseQuery, parseTsVector } from '../src/resident/tsvector';

const A = 3;
const B = 2;
const D = 0;

describe('parseTsVector', () => {
  it.each([
    ['', []],
    [
      "'car':2A,3 'red':1A",
      [
        { lexeme: 'car', positions: [packPosition(2, A), packPosition(3, D)] },
        { lexeme: 'red', positions: [packPosition(1, A)] },
      ],
    ],
    ["'o''neil':4B", [{ lexeme: "o'neil", positions: [packPosition(4, B)] }]],
    ["'back\\\\slash':1", [{ lexeme: 'back\\slash', positions: [packPosition(1, D)] }]],
    [
      "'café':7A 'x':16383",
      [
        { lexeme: 'café', positions: [packPosition(7, A)] },
        { lexeme: 'x', positions: [packPosition(16383, D)] },
      ],
    ],
    [
      "'stripped' 'kept':1",
      [
        { lexeme: 'stripped', positions: [] },
        { lexeme: 'kept', positions: [packPosition(1, D)] },
      ],
    ],
  ])('%s', (text, expected) => {
    expect(parseTsVector(text)).toEqual(expected);
  });
});

describe('parsePhraseQuery', () => {
  it.each([
    ['', []],
    ["'car'", [{ lexeme: 'car', offset: 0 }]],
    [
      "'motor' <-> 'vehicl'",
      [
        { lexeme: 'motor', offset: 0 },
        { lexeme: 'vehicl', offset: 1 },
      ],
    ],
    [
      "'motor' <2> 'vehicl' <-> 'x'",
      [
        { lexeme: 'motor', offset: 0 },
        { lexeme: 'vehicl', offset: 2 },
        { lexeme: 'x', offset: 3 },
      ],
    ],
    ["'o''neil'", [{ lexeme: "o'neil", offset: 0 }]],
    // Forms the resident index leaves to the database.
    ["'a' & 'b'", undefined],
    ["'a' | 'b'", undefined],
    ["!'a'", undefined],
    ["'a':*", undefined],
    ["'a':A", undefined],
    ["( 'a' <-> 'b' ) <-> 'c'", undefined],
    ["'unterminated", undefined],
  ])('%s', (text, expected) => {
    expect(parsePhraseQuery(text)).toEqual(expected);
  });
});

describe('chainPhrases', () => {
  const term = (lexeme: string, offset: number) => ({ lexeme, offset });
  it.each([
    [[], []],
    [
      [[term('a', 0)], [term('b', 0)]],
      [term('a', 0), term('b', 1)],
    ],
    // An empty chunk (punctuation only) takes no position; a chunk of several words keeps its own offsets.
    [
      [[term('don', 0), term('t', 1)], [], [term('e-mail', 0), term('e', 1), term('mail', 2)]],
      [term('don', 0), term('t', 1), term('e-mail', 2), term('e', 3), term('mail', 4)],
    ],
  ])('%j', (phrases, expected) => {
    expect(chainPhrases(phrases)).toEqual(expected);
  });
});

describe('ts_rank', () => {
  // Values PostgreSQL 15 gives (ts_rank, default weights), read back as single precision.
  const doc = (positions: [number, number][]) => positions.map(([p, w]) => packPosition(p, w as 0 | 1 | 2 | 3));
  it('rankOr: red car car | vehicle at B, three query lexemes (0.53700227)', () => {
    expect(
      rankOr([
        doc([
          [2, A],
          [3, A],
        ]),
        doc([[1, A]]),
        doc([[4, B]]),
      ]),
    ).toBe(Math.fround(0.53700227));
  });
  it('rankOr: a lexeme absent from the document still counts in the divisor', () => {
    expect(rankOr([doc([[1, A]]), undefined])).toBe(Math.fround(rankOr([doc([[1, A]])]) / 2));
  });
  it('rankAnd: fewer than two lexemes is rankOr; nothing found ranks 1e-20', () => {
    expect(rankAnd([doc([[1, A]])])).toBe(rankOr([doc([[1, A]])]));
    expect(rankAnd([undefined, undefined])).toBe(Math.fround(1e-20));
  });
});

/**
 * PostgreSQL's text forms of a tsvector and of a phrase tsquery, read into what the resident index
 * holds. PostgreSQL stays the one place where text becomes lexemes (its parser, stemmer and stop
 * words): the resident index takes its documents' lexemes as stored, and each query alternative as
 * PostgreSQL normalises it, so both sides of a match are PostgreSQL's own.
 */

/** A position's weight as PostgreSQL numbers it: D 0, C 1, B 2, A 3. */
export type WeightCode = 0 | 1 | 2 | 3;

/** A position and its weight in one 16-bit number (a position is at most 16,383: 14 bits). */
export const packPosition = (position: number, weight: WeightCode): number => (position << 2) | weight;
export const positionOf = (packed: number): number => packed >> 2;
export const weightOf = (packed: number): WeightCode => (packed & 3) as WeightCode;

/** One lexeme of a document and its packed positions, in position order. */
export interface DocumentLexeme {
  lexeme: string;
  positions: number[];
}

const WEIGHT_CODES: Readonly<Record<string, WeightCode>> = { A: 3, B: 2, C: 1, D: 0 };

/**
 * A quoted lexeme at `at` (the opening quote): its text and the index after the closing quote.
 * PostgreSQL doubles a quote and a backslash inside it.
 */
function quoted(text: string, at: number): { value: string; next: number } {
  let value = '';
  let i = at + 1;
  for (;;) {
    const quote = text.indexOf("'", i);
    const slash = text.indexOf('\\', i);
    if (quote < 0) throw new Error('unterminated lexeme');
    if (slash >= 0 && slash < quote) {
      value += text.slice(i, slash) + text.charAt(slash + 1);
      i = slash + 2;
    } else if (text.charAt(quote + 1) === "'") {
      value += text.slice(i, quote) + "'";
      i = quote + 2;
    } else {
      return { value: value + text.slice(i, quote), next: quote + 1 };
    }
  }
}

/**
 * A tsvector's text form (`'car':2A,3 'red':1A`) as lexemes with packed positions. A lexeme stored
 * without positions (stripped) gets none. Pure.
 */
export function parseTsVector(text: string): DocumentLexeme[] {
  const lexemes: DocumentLexeme[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.charAt(i) === ' ') {
      i++;
      continue;
    }
    const { value, next } = quoted(text, i);
    const positions: number[] = [];
    i = next;
    if (text.charAt(i) === ':') {
      i++;
      for (;;) {
        let position = 0;
        while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57)
          position = position * 10 + text.charCodeAt(i++) - 48;
        const weight = WEIGHT_CODES[text.charAt(i)];
        if (weight !== undefined) i++;
        positions.push(packPosition(position, weight ?? 0));
        if (text.charAt(i) !== ',') break;
        i++;
      }
    }
    lexemes.push({ lexeme: value, positions });
  }
  return lexemes;
}

/** A phrase's lexemes and where each sits after the first (`'motor' <2> 'vehicl'`: offsets 0 and 2). */
export interface PhraseTerm {
  lexeme: string;
  offset: number;
}

/**
 * A normalised phrase tsquery's text (`to_tsquery` of words joined by `<->`, or `phraseto_tsquery`):
 * its terms; `[]` for an empty query (only stop words: it matches nothing); undefined for any other
 * form (operators other than a chain of `<->`/`<N>`, prefixes, weights), which the resident index
 * does not evaluate. Pure.
 */
export function parsePhraseQuery(text: string): PhraseTerm[] | undefined {
  const terms: PhraseTerm[] = [];
  let i = 0;
  let offset = 0;
  const skipSpaces = () => {
    while (text.charAt(i) === ' ') i++;
  };
  skipSpaces();
  if (i === text.length) return terms;
  for (;;) {
    if (text.charAt(i) !== "'") return undefined;
    let lexeme: { value: string; next: number };
    try {
      lexeme = quoted(text, i);
    } catch {
      return undefined;
    }
    terms.push({ lexeme: lexeme.value, offset });
    i = lexeme.next;
    skipSpaces();
    if (i === text.length) return terms;
    const distance = /^<(-|\d+)>/.exec(text.slice(i, i + 8));
    if (!distance) return undefined;
    offset += distance[1] === '-' ? 1 : Number(distance[1]);
    i += distance[0].length;
    skipSpaces();
  }
}

import {
  definitionOf,
  FUNCTION_WORDS,
  glossOfLine,
  openWordNet,
  QUERY_ONLY_STOPWORDS,
  QUERY_STOPWORDS,
  TEXT_ONLY_STOPWORDS,
  TEXT_STOPWORDS,
  tokenize,
} from '../src';

describe('lexicon', () => {
  it.each<[string, string[]]>([
    ["The dog's T-shirt", ['the', 'dog', 't-shirt']],
    ['It’s 10:30, OK?', ['it', '10', '30', 'ok']],
    ["don't stop", ["don't", 'stop']],
  ])('tokenize(%j)', (text, tokens) => expect(tokenize(text)).toEqual(tokens));

  it('has one list of function words, and each use only adds to it', () => {
    for (const word of FUNCTION_WORDS) expect(QUERY_STOPWORDS.has(word) && TEXT_STOPWORDS.has(word)).toBe(true);
    expect([...QUERY_ONLY_STOPWORDS].filter((w) => FUNCTION_WORDS.has(w) || TEXT_ONLY_STOPWORDS.has(w))).toEqual([]);
    expect(QUERY_STOPWORDS.size).toBe(FUNCTION_WORDS.size + QUERY_ONLY_STOPWORDS.size);
    expect(TEXT_STOPWORDS.size).toBe(FUNCTION_WORDS.size + TEXT_ONLY_STOPWORDS.size);
  });

  it.each<[string, boolean, boolean]>([
    ['the', true, true],
    ['video', true, false],
    ['must', true, false],
    ['okay', false, true],
    ['dog', false, false],
  ])('%s: a query stopword %s, a text stopword %s', (word, query, text) => {
    expect(QUERY_STOPWORDS.has(word)).toBe(query);
    expect(TEXT_STOPWORDS.has(word)).toBe(text);
  });
});

describe('the reader: definitions and whole-file passes', () => {
  const wordnet = openWordNet();
  afterAll(() => wordnet.close());

  it('gives a synset its gloss, and the definition before the examples', () => {
    const [entry] = wordnet.lookup('risotto', { pos: 'noun' });
    const gloss = wordnet.gloss('noun', entry!.synsets[0]!.offset);
    expect(definitionOf(gloss)).toMatch(/^rice cooked/);
    expect(definitionOf('a thing; "an example"; "another"')).toBe('a thing');
    expect(glossOfLine('00001 03 n 01 x 0 000 | the gloss')).toBe('the gloss');
  });

  it('reads a whole file line by line, in file order', async () => {
    let count = 0;
    let last = '';
    for await (const line of wordnet.lines('index', 'adv')) {
      if (line.length === 0 || line.startsWith(' ')) continue;
      expect(line > last).toBe(true);
      last = line;
      count += 1;
    }
    expect(count).toBeGreaterThan(4000);
  });
});

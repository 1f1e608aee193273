import { expandQuery, openWordNet, type TermGroup, type WordNetReader } from '../src';

const wordnet = openWordNet();
afterAll(() => wordnet.close());

/** The reader with its synset reads counted. */
function counting(reader: WordNetReader) {
  const counted = { reads: 0 };
  const proxy: WordNetReader = { ...reader, synset: (pos, offset) => (counted.reads++, reader.synset(pos, offset)) };
  return { reader: proxy, counted };
}

describe('expandQuery with kept term groups (issue 31: per term, not per query)', () => {
  const CLASSES = ['person', 'car', 'dog'];
  it.each(['car', 'a red car on the road', 'traffic light', 'soccer player running', 'riding a bike', 'unheardofword 42'])(
    '%s: the same groups as without them, and a term seen before costs no WordNet read',
    (query) => {
      const termGroups = new Map<string, TermGroup>();
      const plain = expandQuery(query, wordnet, { classes: CLASSES });
      expect(expandQuery(query, wordnet, { classes: CLASSES, termGroups })).toEqual(plain);
      const { reader, counted } = counting(wordnet);
      const again = expandQuery(query, reader, { classes: CLASSES, termGroups });
      expect(again).toEqual(plain);
      // Collocations are still looked up in the index per query; synsets (the walk) are not read again.
      expect(counted.reads).toBe(0);
    },
  );

  it('gives each caller groups of its own: changing them leaves the kept ones as they were', () => {
    const termGroups = new Map<string, TermGroup>();
    const first = expandQuery('car', wordnet, { termGroups });
    first[0]!.alternatives.push({ text: 'changed', weight: 1, kind: 'exact' });
    first[0]!.alternatives[0]!.weight = 0;
    expect(expandQuery('car', wordnet, { termGroups })).toEqual(expandQuery('car', wordnet));
  });

  it('keeps a word apart from the same word resolved otherwise (an adjective before a noun)', () => {
    const termGroups = new Map<string, TermGroup>();
    for (const query of ['light', 'light car', 'car light']) {
      expect(expandQuery(query, wordnet, { termGroups })).toEqual(expandQuery(query, wordnet));
    }
  });
});

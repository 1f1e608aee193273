/**
 * Relatedness by WordNet definitions (definitions.ts) on the bundled WordNet: what "space" reaches
 * beyond the word vectors, and what common or abstract words do not fan out to.
 */
import { openWordNet } from '@vus/wordnet';
import { COMMON_DEFINING_WORD, definitionNeighbours, definitionRelation, DEFINITION_WEIGHT, loadDefinitions } from '../src/definitions';
import { DEFINITION_NEIGHBOURS_PER_WORD } from '../src/semantic';

describe('relatedness by WordNet definitions', () => {
  const wordnet = openWordNet();
  let definitions: Awaited<ReturnType<typeof loadDefinitions>>;

  beforeAll(async () => {
    // 1–5 s alone; tens of seconds on two cores shared with other suites.
    definitions = await loadDefinitions(wordnet);
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
});

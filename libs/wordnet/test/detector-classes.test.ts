import { expandQuery, openWordNet, WEIGHTS } from '../src';

const wordnet = openWordNet();
/** Some of COCO's classes, as the detector names them. */
const CLASSES = ['person', 'dog', 'cat', 'horse', 'bird', 'car', 'truck', 'sports ball', 'chair', 'boat'];

/** The detector class a query's groups gained, per group term ('-' for none). */
function classesOf(query: string): string {
  return expandQuery(query, wordnet, { classes: CLASSES })
    .map((group) => {
      const added = group.alternatives.find((a) => a.weight === WEIGHTS.detectorClass && CLASSES.includes(a.text));
      return `${group.term}:${added?.text ?? '-'}`;
    })
    .join(' | ');
}

describe('expandQuery with detector classes (issue 35 §2)', () => {
  it.each([
    // Kinds of a class however far up WordNet files them.
    ['soccer player kicking a ball', 'soccer player:person | kick:- | ball:sports ball'],
    ['a chef', 'chef:person'],
    ['police officer', 'police officer:person'],
    ['labrador retriever', 'labrador retriever:dog'],
    ['mallard', 'mallard:bird'],
    ['stallion', 'stallion:horse'],
    // Already a class or its direct hypernym: nothing added twice.
    ['dog', 'dog:-'],
    ['pickup truck', 'pickup truck:-'],
    // Not a kind of any class: a squirrel is no bird, a coin no person; the class is not invented.
    ['squirrel', 'squirrel:-'],
    ['coins', 'coin:-'],
    ['circuit board', 'circuit board:-'],
    // Verbs are never classes.
    ['running', 'run:-'],
  ])('%s', (query, expected) => {
    expect(classesOf(query)).toBe(expected);
  });

  it('adds nothing unless asked: the concept embedding and older callers expand as before', () => {
    const plain = expandQuery('soccer player', wordnet);
    expect(plain.flatMap((g) => g.alternatives.map((a) => a.text))).not.toContain('person');
  });

  it('gives the class a weight below the term and its hypernyms', () => {
    const [group] = expandQuery('chef', wordnet, { classes: CLASSES });
    expect(group!.alternatives.at(-1)).toEqual({ text: 'person', weight: WEIGHTS.detectorClass, kind: 'hypernym' });
    expect(WEIGHTS.detectorClass).toBeLessThan(WEIGHTS.hypernym);
  });
});

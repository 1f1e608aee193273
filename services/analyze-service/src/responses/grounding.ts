/**
 * What an answer over a knowledge store stands on: numbered passages (a retrieved moment of an
 * item and the evidence indexing found there), the prompt a chat model reads them in, and the
 * citations read back from the `[n]` markers of the answer. Pure functions.
 */
import { mergeRepeats, type Evidence } from '../evidence';
import { clock } from '../text';
import type { Turn } from './conversation';

/** A moment of an item, cited in the answer as `[n]`. */
export interface Passage {
  /** 1-based. */
  n: number;
  itemId: string;
  videoId: string;
  title: string;
  start: number;
  end: number;
  /** What indexing found there (times in its video), repeats merged. */
  evidence: Evidence[];
}

export interface Grounding {
  instructions: string;
  /** Earlier turns, oldest first, bounded (conversation.ts boundHistory). */
  history: Turn[];
  /** The latest question, selections read as their labels. */
  question: string;
  passages: Passage[];
}

export interface Citation {
  /** Offsets of the `[n]` marker in the answer, UTF-16 code units (as JS strings index). */
  startIndex: number;
  endIndex: number;
  itemId: string;
  videoId: string;
  startSec: number;
  endSec: number;
  title: string;
}

/** The answer when no moment of the items in scope bears on the question. */
export const NO_MOMENT = 'No moment in the store bears on that.';

/** Evidence lines of one passage a prompt shows at most. */
export const MAX_PASSAGE_LINES = 12;

const KIND_LABEL = { speech: 'said', text: 'on-screen text', label: 'seen', logo: 'logo', metadata: 'metadata' } as const;

/** `[2] "garden tour", 0:02-0:05` and its evidence lines. */
export function renderPassage(passage: Passage): string {
  const lines = mergeRepeats(passage.evidence)
    .slice(0, MAX_PASSAGE_LINES)
    .map((e) => `  ${clock(e.start)}-${clock(e.end)} ${KIND_LABEL[e.kind]}: ${e.text}`);
  return [`[${passage.n}] "${passage.title}", ${clock(passage.start)}-${clock(passage.end)}`, ...lines].join('\n');
}

const RULES = `You answer questions about a library of videos using only the numbered moments below: what was said, on-screen text, objects seen, logos and metadata found in each, with times.
Cite the moment each statement comes from with its number in square brackets, as [1] or [2][3], right after the statement.
Never state anything the moments do not contain. When none of them bears on the question, say that no moment in the store bears on that.`;

/** The chat a model reads: rules, instructions and moments as the system message, the earlier turns, the question. */
export function groundedMessages(grounding: Grounding): { role: 'system' | 'user' | 'assistant'; content: string }[] {
  const moments = grounding.passages.length > 0 ? grounding.passages.map(renderPassage).join('\n') : '(no moment was found)';
  const system = [RULES, grounding.instructions && `Instructions:\n${grounding.instructions}`, `Moments:\n${moments}`].filter(Boolean);
  return [{ role: 'system', content: system.join('\n\n') }, ...grounding.history, { role: 'user', content: grounding.question }];
}

const MARKER = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;

/**
 * The citations of an answer: one per passage number of each `[n]` (or `[n, m]`) marker, at the
 * marker's offsets; a number that names no passage cites nothing.
 */
export function citationsOf(text: string, passages: readonly Passage[]): Citation[] {
  const byNumber = new Map(passages.map((p) => [p.n, p]));
  const citations: Citation[] = [];
  for (const match of text.matchAll(MARKER)) {
    for (const n of match[1]!.split(',').map((s) => Number(s.trim()))) {
      const p = byNumber.get(n);
      if (!p) continue;
      citations.push({
        startIndex: match.index,
        endIndex: match.index + match[0].length,
        itemId: p.itemId,
        videoId: p.videoId,
        startSec: p.start,
        endSec: p.end,
        title: p.title,
      });
    }
  }
  return citations;
}

/**
 * A response's conversation, before any evidence is read: the input checked and bounded, the
 * `{{sel:N}}` tokens read as their selections' labels, the earlier turns cut to what a prompt may
 * hold, and what the latest question asks for (a broad overview, or a follow-up that leans on the
 * question before it). Pure functions.
 */
import { errors } from '@vus/core';
import { checkPromptText } from '@vus/domain';
import { REQUEST_WORDS } from '@vus/wordnet';
import { contentWords } from '../text';

export type Role = 'user' | 'assistant' | 'system' | 'developer';
const ROLES: readonly Role[] = ['user', 'assistant', 'system', 'developer'];

export interface Message {
  role: Role;
  content: string;
}

/** One line of a conversation as a prompt shows it. */
export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

export interface Selection {
  kind: string;
  id: string;
  label: string;
  itemIds: readonly string[];
}

/** What one request may carry: every text is the caller's, so each is bounded before it is read. */
export const INPUT_LIMITS = {
  messages: 100,
  /** Characters of one message other than the question (which has the prompt limits). */
  messageCharacters: 20_000,
  /** Characters of the whole input. */
  totalCharacters: 100_000,
  instructionsCharacters: 10_000,
  selections: 100,
  labelCharacters: 500,
  /** Items of the store (and item ids of one selection) one request may name. */
  items: 10_000,
} as const;

/** The earlier turns a prompt holds: the latest ones, each message cut, the oldest dropped past the total. */
export const HISTORY_LIMITS = { turns: 8, messageCharacters: 2_000, totalCharacters: 12_000 } as const;

/** The input, checked: roles known, texts bounded, and a last message that is the user's question. */
export function checkInput(input: readonly { role: string; content: string }[], instructions: string): Message[] {
  if (input.length === 0) throw errors.notProvided('input');
  if (input.length > INPUT_LIMITS.messages) throw errors.invalid('input', `It may hold at most ${INPUT_LIMITS.messages} items.`);
  if (instructions.length > INPUT_LIMITS.instructionsCharacters) {
    throw errors.invalid('instructions', `It may be at most ${INPUT_LIMITS.instructionsCharacters} characters long.`);
  }
  let total = 0;
  const messages = input.map((m, i): Message => {
    const role = (m.role || 'user') as Role;
    if (!ROLES.includes(role)) throw errors.invalid(`input[${i}].role`, `It must be one of ${ROLES.join(', ')}.`);
    if (m.content.length > INPUT_LIMITS.messageCharacters) {
      throw errors.invalid(`input[${i}].content`, `It may be at most ${INPUT_LIMITS.messageCharacters} characters long.`);
    }
    total += m.content.length;
    return { role, content: m.content };
  });
  if (total > INPUT_LIMITS.totalCharacters)
    throw errors.invalid('input', `It may hold at most ${INPUT_LIMITS.totalCharacters} characters.`);
  const last = messages[messages.length - 1]!;
  if (last.role !== 'user' || !last.content.trim())
    throw errors.invalid('input', 'Its last item must be a message of role user with some text.');
  checkPromptText(`input[${messages.length - 1}].content`, last.content);
  return messages;
}

/** The scope's sizes: the store's items, the selections and the items each stands for. */
export function checkScope(items: readonly unknown[], selections: readonly Selection[]): void {
  if (items.length > INPUT_LIMITS.items) throw errors.invalid('items', `It may hold at most ${INPUT_LIMITS.items} items.`);
  if (selections.length > INPUT_LIMITS.selections) {
    throw errors.invalid('selections', `It may hold at most ${INPUT_LIMITS.selections} entries.`);
  }
  const large = selections.findIndex((s) => s.itemIds.length > INPUT_LIMITS.items);
  if (large >= 0) throw errors.invalid(`selections[${large}]`, `It may stand for at most ${INPUT_LIMITS.items} items.`);
}

const SELECTION_TOKEN = /\{\{\s*sel:(\d{1,4})\s*\}\}/g;

/**
 * The text with each `{{sel:N}}` read as selection N's label. A token naming no selection is refused
 * (`strict`, the question), or left as written (earlier messages, written against other selections).
 */
export function readSelections(text: string, selections: readonly Selection[], strict = true): string {
  return text.replace(SELECTION_TOKEN, (token, n: string) => {
    const selection = selections[Number(n)];
    if (!selection) {
      if (!strict) return token;
      throw errors.invalid('input', `{{sel:${n}}} names no entry of selections (it has ${selections.length}).`);
    }
    const label = selection.label.trim().slice(0, INPUT_LIMITS.labelCharacters);
    return label ? `"${label}"` : `"${selection.id}"`;
  });
}

/**
 * The turns a prompt shows before the question: the stored turns and the request's own earlier
 * messages, user and assistant only (system and developer messages are instructions), the last
 * `HISTORY_LIMITS.turns` pairs, each message cut to its limit, the oldest dropped until the total fits.
 */
export function boundHistory(turns: readonly Turn[], limits: { [K in keyof typeof HISTORY_LIMITS]: number } = HISTORY_LIMITS): Turn[] {
  const kept = turns.slice(-limits.turns * 2).map((t) => ({
    role: t.role,
    content: t.content.length > limits.messageCharacters ? `${t.content.slice(0, limits.messageCharacters)}…` : t.content,
  }));
  let total = kept.reduce((sum, t) => sum + t.content.length, 0);
  while (kept.length > 0 && total > limits.totalCharacters) total -= kept.shift()!.content.length;
  return kept;
}

/** The conversation of a request: its instructions (with its system and developer messages), earlier turns, and question. */
export function splitConversation(
  messages: readonly Message[],
  instructions: string,
): { instructions: string; earlier: Turn[]; question: string } {
  const guidance = [
    instructions.trim(),
    ...messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content.trim()),
  ];
  const spoken = messages.filter((m): m is Message & Turn => m.role === 'user' || m.role === 'assistant');
  return {
    instructions: guidance.filter(Boolean).join('\n'),
    earlier: spoken.slice(0, -1).map((m) => ({ role: m.role, content: m.content })),
    question: spoken[spoken.length - 1]!.content.trim(),
  };
}

/** Words that ask for an overview rather than name something: "the three most important moments" names nothing. */
const OVERVIEW_WORDS = new Set(
  `store library collection videos items everything anything all most important best top highlight highlights first last
   one two three four five six seven eight nine ten interesting notable relevant overview recap now then again also next else more`.split(
    /\s+/,
  ),
);

/** The words of a question that name what it is about (none: it asks for an overview). */
export function focusWords(question: string): string[] {
  return [...new Set(contentWords(question).filter((w) => !REQUEST_WORDS.has(w) && !OVERVIEW_WORDS.has(w)))];
}

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

/** How many things the question asks for ("the three most important moments": 3, "a one-sentence summary": 1), if it says. */
export function countAsked(question: string): number | undefined {
  const match =
    /\b(one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})[\s-]+(?:\w+\s+){0,2}?(?:moments?|highlights?|things|points|scenes|parts|examples|items|clips|sentences?|bullets?|lines?)\b/i.exec(
      question,
    );
  if (!match) return undefined;
  const n = NUMBER_WORDS[match[1]!.toLowerCase()] ?? Number(match[1]);
  return n >= 1 ? n : undefined;
}

const REFERRING = /\b(it|its|that|those|them|these|this|they|their|there|he|she|him|her|same|above|previous|earlier|more|else|again)\b/i;

/**
 * Whether a follow-up leans on the question before it ("Now list the three most important
 * moments", "what else did she say?"): it refers back, or names too little to be searched alone.
 */
export function refersBack(question: string): boolean {
  return REFERRING.test(question) || focusWords(question).length === 0;
}

/** The words retrieval searches: the question, and the previous one's when it refers back. */
export function retrievalQuery(question: string, previousQuestion: string | undefined): string {
  return previousQuestion && refersBack(question) ? `${previousQuestion} ${question}` : question;
}

/**
 * Words of a broad request: they ask for a summary, a description, a title, tags or a mood, or shape
 * the answer ("in two sentences", "as bullet points"), and name nothing in the videos.
 */
const BROAD_WORDS = new Set(
  `summarize summarise summary summaries describe description overview recap gist happen happens happened going content contents
   knowledge moment moments important sentence sentences bullet bullets list brief briefly short title titles tag tags hashtag
   hashtags topic topics theme themes mood tone atmosphere overall decide decided extract give tell write about whole general`.split(/\s+/),
);
/** Phrases of a broad request whose words alone may name a thing ("the key", "a point"). */
const BROAD_PHRASES = /\b(?:key|main)\s+(?:moments?|points?|events?|scenes?|ideas?)\b|\bbullet\s+points?\b|\bone\s+line\b/gi;

const MOOD = /\b(mood|tone|feel(?:ing)?|atmosphere|vibe|emotion(?:s|al)?)\b/i;
const BULLETS = /\b(bullet(?:s|ed)?|list)\b/i;
/** A quoted stretch: a selection's label as readSelections writes it, not what the question asks about. */
const QUOTED = /"[^"]{0,500}"/g;

/** What the latest question asks for: an overview (and its shape) or something it names. */
export interface RequestKind {
  /** Names nothing in the videos: answered from each item's most salient moments. */
  broad: boolean;
  /** Sentences (or bullets) asked for, if the question says. */
  count: number | undefined;
  bullets: boolean;
  mood: boolean;
}

/** The kind of a question ("Summarize this store in two sentences": broad, 2; "Where is the bicycle?": specific). */
export function classifyRequest(question: string): RequestKind {
  const named = focusWords(question.replace(QUOTED, ' ').replace(/-/g, ' ').replace(BROAD_PHRASES, ' ')).filter((w) => !BROAD_WORDS.has(w));
  return { broad: named.length === 0, count: countAsked(question), bullets: BULLETS.test(question), mood: MOOD.test(question) };
}

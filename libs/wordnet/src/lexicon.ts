/**
 * The words of the project's text handling, in one place: the tokenizer, the function words that
 * are never content, and the lists that add to them for one use (a search query's framing words,
 * speech's fillers, a prompt's asking words). Search, classification and analysis all read these;
 * none keeps a list of its own.
 *
 * The two stopword sets differ only by their additions, kept as each was when search and analysis
 * had lists of their own (search-quality's figures and analysis' answers depend on them): a query
 * also drops modal verbs and more prepositions, and the words that frame a video query; text
 * keeps those ("a must" is content in speech) and drops speech's fillers ("okay", "one thing").
 */

const set = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/).filter(Boolean));

/** Function words: articles, pronouns, auxiliaries, conjunctions and prepositions common to every use. */
export const FUNCTION_WORDS: ReadonlySet<string> = set(`
  a an the and or but nor so if then than as of at by for with about against between into through during
  before after above below to from up down in out on off over under again further once here there when where
  why how all any both each few more most other some such no not only own same too very can will just should
  would could is am are was were be been being have has had having do does did doing i me my myself we our
  ours you your yours he him his she her hers it its they them their theirs what which who whom this that
  these those while until because also don't doesn't isn't aren't can't
`);

/** What a search query also drops: modal verbs, more prepositions, and the words that only frame a video query. */
export const QUERY_ONLY_STOPWORDS: ReadonlySet<string> = set(`
  yet without onto may might must shall us whose via per along around among within upon near
  show shows showing find video videos clip clips scene scenes
`);

/**
 * What text (speech, on-screen text, a prompt) also drops: contractions, reflexive pronouns and
 * speech's fillers. (tokenize cuts a possessive 's, so "it's" and "that's" arrive as function words
 * and "let's" as let.)
 */
export const TEXT_ONLY_STOPWORDS: ReadonlySet<string> = set(`
  didn't herself himself i'm itself let now ourselves themselves they're you're yourself yourselves
  yes yeah okay ok oh um uh hey hi hello gonna wanna really like get got going go one two thing things
  something anything lot lots well
`);

/** Stopwords of a search query (numbers are kept). */
export const QUERY_STOPWORDS: ReadonlySet<string> = new Set([...FUNCTION_WORDS, ...QUERY_ONLY_STOPWORDS]);

/** Stopwords of speech and text: never a key phrase, never what a prompt asks about. */
export const TEXT_STOPWORDS: ReadonlySet<string> = new Set([...FUNCTION_WORDS, ...TEXT_ONLY_STOPWORDS]);

/**
 * Words of a request that ask for something rather than name it ("what is shown in the video?"):
 * a prompt made only of these asks about the whole video.
 */
export const REQUEST_WORDS: ReadonlySet<string> = set(`
  video clip film footage movie recording content contents show shows shown showing happen happens happening
  describe description summarize summary summarise explain tell list give write main key overall whole entire
  please detail details detailed mention mentioned mentions say says said see seen appear appears appearing
  visible display displayed brief briefly short sentence sentences paragraph point points moment moments
  scene scenes part parts time times timestamp timestamps discussed discuss talk talked talks topic topics
  theme themes event events information info kind type about word words term terms phrase phrases
`);

/** Lower-cased words, keeping inner apostrophes and hyphens (t-shirt), without a possessive 's. */
export function tokenize(text: string): string[] {
  const words =
    text
      .toLowerCase()
      .replace(/’/g, "'")
      .match(/[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*/gu) ?? [];
  return words.map((word) => word.replace(/'s$/, ''));
}

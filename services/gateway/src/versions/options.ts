/**
 * Index option vocabularies (API-CONTRACT §3, §4). Services speak the canonical one (v1.2's);
 * v1.3 says visual and audio, and these pure mappings translate at the edge.
 */

/** Canonical (and v1.2) option vocabulary. */
export const V12_OPTIONS = ['visual', 'conversation', 'text_in_video', 'logo'] as const;
export type CanonicalOption = (typeof V12_OPTIONS)[number];

/** v1.3 vocabulary, plus the legacy names its SDK types still tolerate. */
export const V13_OPTIONS = ['visual', 'audio', 'conversation', 'text_in_video', 'logo'] as const;
export type V13Option = (typeof V13_OPTIONS)[number];

/** Engine families are part of model names (marengo2.7, pegasus1.2). */
export function familyOfModel(modelName: string): 'marengo' | 'pegasus' | undefined {
  if (modelName.startsWith('marengo')) return 'marengo';
  if (modelName.startsWith('pegasus')) return 'pegasus';
  return undefined;
}

/**
 * v1.3 options to canonical ones. v1.3's `visual` covers on-screen text and logos, which only
 * Marengo indexes; `audio` is what v1.2 called conversation.
 */
export function v13ToCanonicalOptions(modelName: string, options: readonly V13Option[]): CanonicalOption[] {
  const visualMeans: CanonicalOption[] = familyOfModel(modelName) === 'pegasus' ? ['visual'] : ['visual', 'text_in_video', 'logo'];
  const mapped = options.flatMap((option): CanonicalOption[] =>
    option === 'visual' ? visualMeans : option === 'audio' ? ['conversation'] : [option],
  );
  return [...new Set(mapped)];
}

/** Canonical options as v1.3 shows them: visual if anything visual, audio if conversation. */
export function canonicalToV13Options(options: readonly string[]): ('visual' | 'audio')[] {
  const result: ('visual' | 'audio')[] = [];
  if (options.some((o) => o === 'visual' || o === 'text_in_video' || o === 'logo')) result.push('visual');
  if (options.includes('conversation')) result.push('audio');
  return result;
}

/** A v1.3 option filter on lists: audio means conversation, visual means visual. */
export function v13FilterToCanonical(options: readonly V13Option[]): CanonicalOption[] {
  return [...new Set(options.map((o): CanonicalOption => (o === 'audio' ? 'conversation' : o)))];
}

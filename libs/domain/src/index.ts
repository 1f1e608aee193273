/**
 * The product's own vocabulary, apart from the plumbing of @vus/core: what the API's words mean
 * (engine families, canonical options, task statuses, metadata values), the limits on what a
 * request may say (query text, prompts and their tokens, transcription files), and the interval
 * algebra of moments in a video that search, classification and analysis share.
 */
export * from './vocabulary';
export * from './intervals';
export * from './query-text';
export * from './transcription';
export * from './tokens';

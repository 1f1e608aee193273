import { errors } from '@vus/core';

/**
 * An asset's user metadata (issue 32 §3, PUT/PATCH/DELETE /assets/{id}/user-metadata): keys of
 * strings, numbers and booleans, bounded like a video's user metadata (index-service's
 * USER_METADATA_LIMITS), so an asset's metadata can become its indexed video's unchanged.
 */
export type AssetMetadataValue = string | number | boolean;
export type AssetUserMetadata = Record<string, AssetMetadataValue>;
export type MetadataChangeMode = 'replace' | 'merge' | 'clear';
export const METADATA_CHANGE_MODES: readonly MetadataChangeMode[] = ['replace', 'merge', 'clear'];

export const ASSET_METADATA_LIMITS = { keys: 100, keyLength: 256, stringLength: 10_000 } as const;

/** Checks each sent key and value (null only removes a key when merging). Pure. */
export function checkMetadataInput(input: Readonly<Record<string, AssetMetadataValue | null>>, mode: MetadataChangeMode): void {
  const entries = Object.entries(input);
  if (entries.length > ASSET_METADATA_LIMITS.keys) {
    throw errors.invalid('user_metadata', `It may hold at most ${ASSET_METADATA_LIMITS.keys} keys.`);
  }
  for (const [key, value] of entries) {
    if (key.trim() === '' || key.length > ASSET_METADATA_LIMITS.keyLength) {
      throw errors.invalid('user_metadata', `Keys must be 1 to ${ASSET_METADATA_LIMITS.keyLength} characters long.`);
    }
    if (value === null) continue; // merge: removes the key; replace: ignored, as the reference documents
    if (typeof value === 'number' && !Number.isFinite(value)) throw errors.invalid(`user_metadata.${key}`, 'Numbers must be finite.');
    if (typeof value === 'string' && value.length > ASSET_METADATA_LIMITS.stringLength) {
      throw errors.invalid(`user_metadata.${key}`, `Strings may be at most ${ASSET_METADATA_LIMITS.stringLength} characters long.`);
    }
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      throw errors.invalid(`user_metadata.${key}`, 'Values must be strings, numbers or booleans.');
    }
  }
  if (mode === 'clear' && entries.length > 0) throw errors.invalid('user_metadata', 'Clearing takes no keys.');
}

/**
 * The metadata after a change, as twelvelabs-js 1.3.4's reference documents it: replace keeps only
 * the sent keys; merge keeps the others; in both an empty string is ignored; merge's null removes a
 * key (replace ignores it). No keys left is null: the asset then has no metadata (the field is absent).
 * Pure; the change is checked first (checkMetadataInput).
 */
export function changedMetadata(
  current: AssetUserMetadata | null,
  input: Readonly<Record<string, AssetMetadataValue | null>>,
  mode: MetadataChangeMode,
): AssetUserMetadata | null {
  checkMetadataInput(input, mode);
  if (mode === 'clear') return null;
  const next: AssetUserMetadata = mode === 'merge' ? { ...(current ?? {}) } : {};
  for (const [key, value] of Object.entries(input)) {
    if (value === '') continue;
    if (value === null) {
      if (mode === 'merge') delete next[key];
      continue;
    }
    next[key] = value;
  }
  const keys = Object.keys(next).length;
  if (keys > ASSET_METADATA_LIMITS.keys) {
    throw errors.invalid('user_metadata', `The asset would hold ${keys} keys; it may hold at most ${ASSET_METADATA_LIMITS.keys}.`);
  }
  return keys === 0 ? null : next;
}

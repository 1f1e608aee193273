import { changedMetadata, type AssetMetadataValue, type AssetUserMetadata, type MetadataChangeMode } from '../src/assets/user-metadata';
import { codeOf } from '@vus/testing';

const CURRENT: AssetUserMetadata = { category: 'old', batchNumber: 5 };

describe('changedMetadata (twelvelabs-js 1.3.4 reference: PUT replaces, PATCH merges, DELETE clears)', () => {
  it.each<[string, AssetUserMetadata | null, Record<string, AssetMetadataValue | null>, MetadataChangeMode, AssetUserMetadata | null]>([
    ['replace keeps only the sent keys', CURRENT, { rating: 9.3 }, 'replace', { rating: 9.3 }],
    ['replace ignores "" and null', CURRENT, { a: '', b: null, c: true }, 'replace', { c: true }],
    ['replace with {} clears', CURRENT, {}, 'replace', null],
    ['merge keeps the other keys', CURRENT, { rating: 9.3 }, 'merge', { category: 'old', batchNumber: 5, rating: 9.3 }],
    ['merge: null removes, "" is ignored', CURRENT, { category: null, batchNumber: '' }, 'merge', { batchNumber: 5 }],
    ['merge removing the last key leaves none', { a: 1 }, { a: null }, 'merge', null],
    ['merge onto nothing', null, { a: false }, 'merge', { a: false }],
    ['clear', CURRENT, {}, 'clear', null],
  ])('%s', (_name, current, input, mode, expected) => {
    expect(changedMetadata(current, input, mode)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, MetadataChangeMode]>([
    ['101 keys', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])), 'replace'],
    ['an empty key', { ' ': 1 }, 'merge'],
    ['a 257-character key', { ['k'.repeat(257)]: 1 }, 'merge'],
    ['a 10,001-character string', { a: 'x'.repeat(10_001) }, 'replace'],
    ['an infinite number', { a: Infinity }, 'merge'],
    ['an object', { a: { nested: 1 } }, 'merge'],
    ['keys with clear', { a: 1 }, 'clear'],
  ])('refuses %s', async (_name, input, mode) => {
    expect(await codeOf(Promise.resolve().then(() => changedMetadata(null, input as Record<string, AssetMetadataValue>, mode)))).toBe(
      'parameter_invalid',
    );
  });
});

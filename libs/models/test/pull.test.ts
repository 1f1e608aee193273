import { hubFileUrl, isModelId, mismatch, parseHubListing } from '../src/hf/pull';
import { progressLine } from '../src/cli/models';

describe('pulling models: the pure parts', () => {
  it.each([
    ['Xenova/clip-vit-base-patch32', true],
    ['tiny/clip', true],
    ['openai/whisper-base.en', true],
    ['../etc', false],
    ['a/../b', false],
    ['a/b/c', false],
    ['noslash', false],
    ['/abs', false],
    ['a/b c', false],
  ])('isModelId(%j) is %s', (id, expected) => {
    expect(isModelId(id)).toBe(expected);
  });

  it('builds hub URLs with each path segment encoded', () => {
    expect(hubFileUrl('https://hub.example/', 'o/m', 'main', 'onnx/text model.onnx')).toBe(
      'https://hub.example/o/m/resolve/main/onnx/text%20model.onnx',
    );
  });

  it('reads the hub listing: sha256 for LFS files, the git id for the rest, folders and junk skipped', () => {
    const facts = parseHubListing([
      { type: 'file', path: 'config.json', size: 10, oid: 'aa' },
      { type: 'file', path: 'onnx/m.onnx', size: 99, oid: 'bb', lfs: { oid: 'cc', size: 99 } },
      { type: 'directory', path: 'onnx', size: 0, oid: 'dd' },
      { type: 'file', path: 5 },
      null,
    ]);
    expect([...facts.values()]).toEqual([
      { path: 'config.json', size: 10, gitOid: 'aa' },
      { path: 'onnx/m.onnx', size: 99, sha256: 'cc' },
    ]);
    expect(() => parseHubListing({ error: 'x' })).toThrow('not a list');
  });

  const actual = { size: 5, sha256: 'good', gitOid: 'blob' };
  it.each([
    ['no facts (a plain mirror)', undefined, undefined],
    ['size and sha256 match', { path: 'f', size: 5, sha256: 'good' }, undefined],
    ['git id matches', { path: 'f', size: 5, gitOid: 'blob' }, undefined],
    ['size differs', { path: 'f', size: 6, sha256: 'good' }, '5 bytes, the hub lists 6'],
    ['sha256 differs', { path: 'f', size: 5, sha256: 'bad' }, 'sha256 differs from the hub'],
    ['git id differs', { path: 'f', size: 5, gitOid: 'other' }, 'checksum differs from the hub'],
  ])('mismatch: %s', (_case, expected, answer) => {
    expect(mismatch(actual, expected)).toBe(answer);
  });

  it.each([
    [{ file: 'a.onnx', received: 0, total: 200e6 }, 'a.onnx [........................] 0% of 200 MB'],
    [{ file: 'a.onnx', received: 100e6, total: 200e6 }, 'a.onnx [############............] 50% of 200 MB'],
    [{ file: 'a.onnx', received: 200e6, total: 200e6 }, 'a.onnx [########################] 100% of 200 MB'],
    [{ file: 'c.json', received: 2500 }, 'c.json: 0.0 MB'],
  ])('progress line %#', (progress, line) => {
    expect(progressLine(progress)).toBe(line);
  });
});

import { Base64Stream } from '../src/http/base64-stream';

/** Decodes `text` cut into pieces of `size` characters: the bytes, or 'invalid'. */
function decode(text: string, size: number): string {
  const stream = new Base64Stream();
  const parts: Buffer[] = [];
  for (let at = 0; at < text.length; at += size) parts.push(stream.push(text.slice(at, at + size)));
  parts.push(stream.end());
  return stream.valid ? Buffer.concat(parts).toString('latin1') : 'invalid';
}

const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 37) % 256));
const long = bytes.toString('base64');

describe('Base64Stream decodes as Buffer.from(compact text) would, in pieces of any size', () => {
  it.each([
    ['plain', long, bytes.toString('latin1')],
    ['with whitespace and newlines', long.replace(/(.{76})/g, '$1\r\n '), bytes.toString('latin1')],
    ['a data URL', `data:image/png;base64,${long}`, bytes.toString('latin1')],
    ['short', 'aGk=', 'hi'],
    ['unpadded', 'aGk', 'hi'],
    ['two pads', 'YQ==', 'a'],
    ['empty', '', ''],
    ['not base64', '***', 'invalid'],
    ['a character outside the alphabet far in', `${long}!${long}`, 'invalid'],
    ['data after padding', 'aGk=aGk=', 'invalid'],
    ['three pads', 'YQ===', 'invalid'],
    ['a data URL not at the start', `AAAA data:image/png;base64,${long}`, 'invalid'],
  ])('%s', (_name, text, expected) => {
    for (const size of [1, 3, 4, 7, 256, 100_000]) expect([size, decode(text, size)]).toEqual([size, expected]);
  });
});

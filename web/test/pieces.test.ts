import { NdjsonLines } from '../src/lib/ndjson';
import { readPieces, type PieceSplitter } from '../src/lib/pieces';
import { SseMessages } from '../src/lib/sse';

/** A response body that arrives in these chunks. */
const bodyOf = (chunks: string[]) =>
  new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

const piecesOf = async (chunks: string[], splitter: PieceSplitter<unknown>) => {
  const pieces: unknown[] = [];
  await readPieces(bodyOf(chunks), splitter, (piece) => pieces.push(piece));
  return pieces;
};

describe('readPieces', () => {
  it.each([
    [
      'NDJSON split mid-line, its last line unterminated',
      ['{"a":1}\n{"b"', ':2}\n{"c":3}'],
      () => new NdjsonLines(),
      [{ a: 1 }, { b: 2 }, { c: 3 }],
    ],
    [
      'Server-Sent Events split mid-event, the last without its blank line',
      ['event: delta\ndata: He', 'llo\n\ndata: [DONE]'],
      () => new SseMessages(),
      [
        { event: 'delta', data: 'Hello' },
        { event: 'message', data: '[DONE]' },
      ],
    ],
    ['an empty body', [], () => new NdjsonLines(), []],
  ])('%s', async (_name, chunks, splitter, expected) => {
    expect(await piecesOf(chunks, splitter())).toEqual(expected);
  });

  it('refuses a response without a body', async () => {
    await expect(readPieces(null, new NdjsonLines(), () => undefined)).rejects.toThrow('The browser gave no readable stream.');
  });

  it('hands each piece on as its chunk arrives, before the body ends', async () => {
    let more!: ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>;
    const body = new ReadableStream<Uint8Array<ArrayBuffer>>({ start: (controller) => void (more = controller) });
    const seen: unknown[] = [];
    const reading = readPieces(body, new NdjsonLines(), (piece) => seen.push(piece));
    more.enqueue(new TextEncoder().encode('{"first":true}\n'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toEqual([{ first: true }]);
    more.close();
    await reading;
  });
});

/**
 * What splits a response's text, chunk by chunk, into the pieces a stream is made of (NDJSON
 * lines, Server-Sent Events): `push` gives the pieces a chunk completes, `end` what is left.
 */
export interface PieceSplitter<T> {
  push(chunk: string): T[];
  end(): T[];
}

/** Reads `body` to its end, handing each piece to `onPiece` as soon as its chunk arrives. */
export async function readPieces<T>(body: Response['body'], splitter: PieceSplitter<T>, onPiece: (piece: T) => void): Promise<void> {
  if (!body) throw new Error('The browser gave no readable stream.');
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const piece of splitter.push(value)) onPiece(piece);
  }
  for (const piece of splitter.end()) onPiece(piece);
}

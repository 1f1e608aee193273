import type { Readable } from 'node:stream';

/**
 * Pulls whole records out of a byte stream, reading only as far as asked: the consumer's pace is
 * the producer's pace (ffmpeg blocks on a full pipe), so memory stays at about one record.
 */
export class StreamReader {
  private readonly chunks: AsyncIterator<Buffer>;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;

  constructor(stream: Readable) {
    this.chunks = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** The next `size` bytes, or undefined at the end of the stream (a partial tail is dropped). */
  async readExact(size: number): Promise<Buffer | undefined> {
    while (this.pendingBytes < size) {
      if (!(await this.pull())) return undefined;
    }
    return this.take(size);
  }

  /**
   * The next JPEG image (SOI … EOI). Safe for ffmpeg's mjpeg output: entropy-coded data escapes
   * 0xFF, so 0xFF 0xD9 only occurs as the end marker (ffmpeg embeds no thumbnails).
   */
  async readJpeg(): Promise<Buffer | undefined> {
    let scanned = 0;
    for (;;) {
      const end = this.findEndOfImage(scanned);
      if (end >= 0) return this.take(end + 2);
      scanned = Math.max(0, this.pendingBytes - 1);
      if (!(await this.pull())) return undefined;
    }
  }

  /**
   * Reads and drops the rest of the stream, to its end. A child process's 'close' waits for every
   * one of its pipes to end, and a pipe with bytes left unread never does.
   */
  async drain(): Promise<void> {
    this.pending = [];
    this.pendingBytes = 0;
    while (await this.pull()) this.pending = [];
    this.pendingBytes = 0;
  }

  private findEndOfImage(from: number): number {
    // Search across chunk boundaries without joining everything on every read.
    let offset = 0;
    let previous = -1;
    for (const chunk of this.pending) {
      const start = Math.max(0, from - offset);
      for (let i = start; i < chunk.length; i++) {
        const byte = chunk[i];
        const prior = i > 0 ? chunk[i - 1] : previous;
        if (byte === 0xd9 && prior === 0xff && offset + i >= 1) return offset + i - 1;
      }
      previous = chunk[chunk.length - 1] ?? -1;
      offset += chunk.length;
    }
    return -1;
  }

  private async pull(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.chunks.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.pending.push(next.value);
    this.pendingBytes += next.value.length;
    return true;
  }

  private take(size: number): Buffer {
    const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    const record = Buffer.from(all.subarray(0, size));
    const rest = all.subarray(size);
    this.pending = rest.length ? [rest] : [];
    this.pendingBytes = rest.length;
    return record;
  }
}

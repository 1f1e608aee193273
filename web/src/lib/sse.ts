/**
 * Splits a stream of text chunks into Server-Sent Events (the HTML standard's event-stream
 * format, as POST /responses with `stream: true` sends it): `field: value` lines, an event ended
 * by a blank line, `data` lines joined by newlines, `:` lines ignored. A chunk may end anywhere,
 * even between the `\r` and `\n` of one line ending: the rest waits for the next chunk.
 */
export interface SseMessage {
  /** The `event:` field, or `message` when the event named none. */
  event: string;
  data: string;
}

/** A line longer than this is refused: a stream that never ends its line would hold the page's memory. */
export const MAX_SSE_LINE = 4 * 1024 * 1024;

export class SseMessages {
  private pending = '';
  private event = '';
  private data: string[] = [];

  /** The events this chunk completes. */
  push(chunk: string): SseMessage[] {
    this.pending += chunk;
    const lines = this.pending.split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? '';
    // A lone `\r` at the end may be the first half of `\r\n`: its line waits for the next chunk.
    if (this.pending === '' && chunk.endsWith('\r')) this.pending = `${lines.pop() ?? ''}\r`;
    if (this.pending.length > MAX_SSE_LINE) throw new Error('The server sent an event line too long to read.');
    return lines.flatMap((line) => this.line(line));
  }

  /** What a stream that ended without a final blank line still completes. */
  end(): SseMessage[] {
    const rest = this.pending.replace(/\r$/, '');
    this.pending = '';
    return [...(rest === '' ? [] : this.line(rest)), ...this.line('')];
  }

  private line(line: string): SseMessage[] {
    if (line === '') {
      const message = this.data.length > 0 ? [{ event: this.event || 'message', data: this.data.join('\n') }] : [];
      this.event = '';
      this.data = [];
      return message;
    }
    if (line.startsWith(':')) return [];
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return [];
  }
}

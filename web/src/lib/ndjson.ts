/**
 * Splits a stream of text chunks into NDJSON lines (API-CONTRACT §5.7: one JSON object per line,
 * `\n`-terminated, no `data:` prefix). A chunk may end mid-line: the rest waits for the next chunk.
 */
export class NdjsonLines {
  private pending = '';

  /** The complete lines this chunk finishes, parsed; blank lines are skipped. */
  push(chunk: string): unknown[] {
    this.pending += chunk;
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
  }

  /** The last line, when the stream ended without a final newline. */
  end(): unknown[] {
    const rest = this.pending;
    this.pending = '';
    return rest.trim() === '' ? [] : [JSON.parse(rest) as unknown];
  }
}

/** One event of a generation stream, as the page uses it. */
export type StreamEvent =
  | { kind: 'text'; text: string }
  | { kind: 'end'; finishReason: string | undefined }
  | { kind: 'error'; message: string }
  | { kind: 'other' };

export function readStreamEvent(value: unknown): StreamEvent {
  const event = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  switch (event.event_type) {
    case 'text_generation':
      return { kind: 'text', text: typeof event.text === 'string' ? event.text : '' };
    case 'stream_end':
      return { kind: 'end', finishReason: typeof event.finish_reason === 'string' ? event.finish_reason : undefined };
    case 'stream_error': {
      const error = typeof event.error === 'object' && event.error !== null ? (event.error as Record<string, unknown>) : {};
      return { kind: 'error', message: typeof error.message === 'string' ? error.message : 'The stream ended with an error.' };
    }
    default:
      return { kind: 'other' };
  }
}

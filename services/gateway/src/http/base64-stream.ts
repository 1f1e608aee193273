/**
 * Decodes a base64 text that arrives in pieces (a JSON string value read as it streams), as
 * `Buffer.from(text.replace(/^data:…;base64,/, '').replace(/\s+/g, ''), 'base64')` would decode it
 * whole: whitespace ignored, an optional data-URL prefix, padding only at the end. Holds at most a
 * few characters between pieces, plus the first DATA_URL_HEAD characters until it knows whether
 * they start with a data URL.
 */

/** A data URL's prefix is short: `data:image/png;base64,`; the first characters are held until this many are in. */
const DATA_URL_HEAD = 256;
const DATA_URL = /^data:[^,]*;base64,/;
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
const WHITESPACE = /\s+/g;

export class Base64Stream {
  /** The first characters, held until it is known whether they start with a data URL. */
  private head: string | undefined = '';
  /** Characters not decoded yet: fewer than four. */
  private pending = '';
  /** How many `=` came: at most two, and nothing else after the first. */
  private padding = 0;
  /** False once a character outside base64 (or one after the padding) was seen; nothing more is decoded. */
  valid = true;

  /** The bytes that `piece` completes (empty when none, or once the text is not base64). */
  push(piece: string): Buffer {
    let chars = piece.replace(WHITESPACE, '');
    if (this.head !== undefined) {
      this.head += chars;
      if (this.head.length < DATA_URL_HEAD) return EMPTY;
      chars = this.endHead();
    }
    return this.decode(chars, false);
  }

  /** The last bytes, once the text has ended (empty when it is not base64). */
  end(): Buffer {
    return this.decode(this.head !== undefined ? this.endHead() : '', true);
  }

  private endHead(): string {
    const head = (this.head ?? '').replace(DATA_URL, '');
    this.head = undefined;
    return head;
  }

  private decode(chars: string, last: boolean): Buffer {
    if (!this.valid || !this.accepts(chars)) {
      this.valid = false;
      this.pending = '';
      return EMPTY;
    }
    const text = this.pending + chars;
    const whole = last ? text.length : text.length - (text.length % 4);
    this.pending = text.slice(whole);
    return whole === 0 ? EMPTY : Buffer.from(text.slice(0, whole), 'base64');
  }

  /** Base64 characters, with `=` only at the end of the whole text, two at most. */
  private accepts(chars: string): boolean {
    if (NOT_BASE64.test(chars)) return false;
    const at = this.padding > 0 ? 0 : chars.indexOf('=');
    if (at === -1) return true;
    const tail = chars.slice(at);
    if (!ONLY_PADDING.test(tail)) return false;
    this.padding += tail.length;
    return this.padding <= 2;
  }
}

const EMPTY = Buffer.alloc(0);
const ONLY_PADDING = /^=*$/;

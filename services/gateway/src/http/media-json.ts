/**
 * A JSON body whose media comes inline as base64 (`media_source.base64_string` of /embed-v2 and
 * /embed-v2/tasks), read as it streams: each `base64_string` value is decoded into the blob store
 * as it arrives and stands in the body as a StoredMedia, so a request holds a few KiB of it in
 * memory, not the media twice over (text, then bytes). Everything else is held as JSON.parse would
 * build it, bounded in all (`textBytes`, with each value costing at least VALUE_COST) and in depth.
 * Before its first media value is read, `beforeMedia` is awaited (the rate check, which may refuse
 * the request before its media is read).
 */
import type { BlobStore } from '@vus/blob';
import { ApiError } from '@vus/core';
import type { Request } from 'express';
import { PassThrough } from 'node:stream';
import Parser from 'stream-json/Parser';
import { Base64Stream } from './base64-stream';

/** A base64 media value of the body, decoded into the blob store as it arrived. */
export class StoredMedia {
  constructor(
    readonly blobKey: string,
    /** Bytes decoded (0: an empty string). */
    readonly size: number,
    /** False when the text was not base64: nothing is stored. */
    readonly valid: boolean,
  ) {}
}

export interface MediaJsonOptions {
  /** Where media goes; absent: media values stay strings, held like any other text (within `bodyBytes`). */
  blobs: BlobStore | undefined;
  /** A new blob key for one media value. */
  newKey: () => string;
  /** Bytes of the whole body. */
  bodyBytes: number;
  /** Bytes of everything but the media values (keys, other strings, numbers), VALUE_COST at least per value. */
  textBytes: number;
  /** Awaited once, before the first media value is read: the body so far, and the keys leading to that value. */
  beforeMedia: (partial: Record<string, unknown>, path: readonly (string | number)[]) => Promise<void>;
}

export interface MediaJsonBody {
  body: Record<string, unknown>;
  /** Every media value stored (a duplicate key's too). */
  media: StoredMedia[];
  /** Removes every stored media value. */
  discard(): Promise<void>;
}

/** The key whose string values are media. */
const MEDIA_KEY = 'base64_string';
/** What each value or key costs of the text allowance, however short: a million `0,` must not be a million numbers. */
const VALUE_COST = 16;
/** Bodies of /embed-v2 nest five levels; deeper is not a request. */
const MAX_DEPTH = 32;

type Container = Record<string, unknown> | unknown[];
type Token = { name: string; value?: unknown };

const malformed = () => new ApiError('body_malformed', 'The request body is not valid JSON.');
const tooLarge = (limit: number, what: string) => new ApiError('payload_too_large', `The request body ${what} ${limit} bytes.`);

/**
 * Reads the request's JSON body (an object) as described above (without a blob store, media values
 * stay strings, bounded by `bodyBytes` only, and beforeMedia is still awaited before the first). On any failure, what was stored
 * is removed and the request is left unread (the answer closes the connection).
 */
export async function readMediaJson(req: Request, options: MediaJsonOptions): Promise<MediaJsonBody> {
  const media: StoredMedia[] = [];
  const discard = async () => {
    const store = options.blobs;
    if (store) await Promise.all(media.map((m) => store.delete(m.blobKey).catch(() => false)));
  };
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > options.bodyBytes) throw tooLarge(options.bodyBytes, 'is larger than the limit of');
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') throw new ApiError('unsupported_media_type', 'The request body encoding is not supported.');
  const charset = /charset=([^;]+)/i
    .exec(req.headers['content-type'] ?? '')?.[1]
    ?.trim()
    .toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw new ApiError('unsupported_media_type', 'The request body charset is not supported.');

  const parser = new Parser({ packKeys: false, packStrings: false, packNumbers: false });
  let received = 0;
  let failure: unknown;
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > options.bodyBytes) return parser.destroy(tooLarge(options.bodyBytes, 'is larger than the limit of'));
    if (!parser.write(chunk)) req.pause();
  };
  const onAborted = () => parser.destroy(new ApiError('request_canceled_or_timed_out', 'The request was aborted by the client.'));
  req.on('data', onData);
  req.on('end', () => parser.end());
  req.on('aborted', onAborted);
  req.on('error', onAborted);
  parser.on('drain', () => req.resume());
  try {
    const body = await assemble(parser, options, media);
    return { body, media, discard };
  } catch (error) {
    failure = error;
    await discard();
    // The parser's own errors say where the JSON went wrong; the client is told it is not JSON.
    throw !(error instanceof ApiError) && (error as { message?: string }).message?.startsWith('Parser ') ? malformed() : error;
  } finally {
    req.off('data', onData);
    if (failure !== undefined) req.pause();
  }
}

/** Builds the body from the parser's tokens. */
async function assemble(parser: Parser, options: MediaJsonOptions, media: StoredMedia[]): Promise<Record<string, unknown>> {
  let text = 0;
  const spend = (bytes: number) => {
    text += Math.max(bytes, VALUE_COST);
    if (text > options.textBytes) throw tooLarge(options.textBytes, 'holds more text than');
  };
  let root: Record<string, unknown> | undefined;
  const open: Container[] = [];
  const path: (string | number)[] = [];
  let key: string | undefined;
  let pieces: string[] | undefined;
  let mediaValue: MediaWriter | undefined;
  let checked = false;
  /** The string being read is a media value (`base64_string`). */
  let inlineMedia = false;

  const place = (value: unknown) => {
    const parent = open[open.length - 1];
    if (!parent) throw malformed();
    if (Array.isArray(parent)) parent.push(value);
    // An own property, as JSON.parse makes it (`__proto__` is a key like another).
    else Object.defineProperty(parent, key!, { value, writable: true, enumerable: true, configurable: true });
  };
  const enter = (container: Container) => {
    if (open.length === 0) {
      if (Array.isArray(container) || root) throw malformed();
      root = container;
    } else {
      place(container);
      const parent = open[open.length - 1]!;
      path.push(Array.isArray(parent) ? parent.length - 1 : key!);
    }
    if (open.length >= MAX_DEPTH) throw new ApiError('body_malformed', `The request body nests deeper than ${MAX_DEPTH} levels.`);
    open.push(container);
  };

  for await (const token of parser as AsyncIterable<Token>) {
    switch (token.name) {
      case 'startObject':
        spend(0);
        enter({});
        break;
      case 'startArray':
        spend(0);
        enter([]);
        break;
      case 'endObject':
      case 'endArray':
        open.pop();
        path.pop();
        break;
      case 'startKey':
      case 'startNumber':
        pieces = [];
        break;
      case 'startString': {
        const parent = open[open.length - 1];
        inlineMedia = Boolean(parent && !Array.isArray(parent) && key === MEDIA_KEY);
        if (inlineMedia && !checked) {
          checked = true;
          await options.beforeMedia(root!, [...path, key!]);
        }
        if (inlineMedia && options.blobs) mediaValue = new MediaWriter(options.blobs, options.newKey(), options.bodyBytes);
        else pieces = [];
        break;
      }
      case 'stringChunk':
      case 'numberChunk': {
        const piece = token.value as string;
        if (mediaValue) await mediaValue.write(piece);
        else {
          // Media kept as text (no blob store) is bounded by the body's limit only, as before.
          if (!inlineMedia) spend(piece.length);
          pieces!.push(piece);
        }
        break;
      }
      case 'endKey':
        key = pieces!.join('');
        spend(key.length);
        break;
      case 'endString':
        if (mediaValue) {
          const stored = await mediaValue.end();
          media.push(stored);
          place(stored);
          mediaValue = undefined;
        } else place(pieces!.join(''));
        inlineMedia = false;
        break;
      case 'endNumber':
        place(Number(pieces!.join('')));
        break;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        spend(0);
        place(token.value);
        break;
    }
  }
  if (!root || open.length > 0) throw malformed();
  return root;
}

/** One media value streaming into the blob store: decoded as it comes, with backpressure. */
class MediaWriter {
  private readonly decoder = new Base64Stream();
  private readonly stream = new PassThrough();
  private readonly stored: Promise<number | Error>;

  constructor(
    private readonly blobs: BlobStore,
    readonly blobKey: string,
    maxBytes: number,
  ) {
    this.stored = blobs.put(blobKey, this.stream, { maxBytes }).then(
      (info) => info.size,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
  }

  async write(piece: string): Promise<void> {
    const bytes = this.decoder.push(piece);
    if (bytes.length === 0) return;
    // The write's callback comes once the store has taken it: the body is read no faster than it is stored
    // (or until the put has failed, when the callback may never come).
    await Promise.race([new Promise<void>((resolve) => this.stream.write(bytes, () => resolve())), this.stored]);
  }

  async end(): Promise<StoredMedia> {
    const last = this.decoder.end();
    if (!this.decoder.valid) {
      this.stream.destroy(new Error('not base64'));
      await this.stored;
      return new StoredMedia(this.blobKey, 0, false);
    }
    this.stream.end(last);
    const size = await this.stored;
    if (size instanceof Error) throw size;
    return new StoredMedia(this.blobKey, size, true);
  }
}

/** What was stored for a request's body, and whether a task took it over. */
const storedFor = new WeakMap<object, { upload: MediaJsonBody; kept: boolean }>();

/** Records the media stored for `req`: removed by discardStoredMedia unless keepStoredMedia came first. */
export function trackStoredMedia(req: object, upload: MediaJsonBody): void {
  storedFor.set(req, { upload, kept: false });
}

/** The request's media now belongs to what it made (a task, which removes it when done). */
export function keepStoredMedia(req: object): void {
  const entry = storedFor.get(req);
  if (entry) entry.kept = true;
}

/** Removes the request's stored media, unless kept; once. */
export async function discardStoredMedia(req: object): Promise<void> {
  const entry = storedFor.get(req);
  storedFor.delete(req);
  if (entry && !entry.kept) await entry.upload.discard();
}

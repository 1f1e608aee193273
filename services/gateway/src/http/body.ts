import type { BlobStore } from '@vus/blob';
import { ApiError, errors } from '@vus/core';
import busboy from 'busboy';
import express, { type RequestHandler } from 'express';
import { endpointOf } from '../endpoints/router';
import { discardStoredMedia, readMediaJson, trackStoredMedia } from './media-json';
import { nulError } from './text-limits';

export interface BodyLimits {
  /** Bytes of a JSON or urlencoded body, and of all the text of a multipart body together. */
  json: number;
  /** Bytes of one multipart text field, or of a file part read as text. */
  field: number;
}

export type BodyFields = Record<string, string | string[]>;

/** The largest query image (API-CONTRACT §5.5: JPEG/PNG ≤ 5 MB). */
export const QUERY_IMAGE_BYTES = 5 * 1024 * 1024;
/** The largest audio file of a synchronous POST /embed (a few minutes of compressed audio). */
export const EMBED_AUDIO_BYTES = 25 * 1024 * 1024;
/** The largest video file of POST /embed/tasks (streamed to the blob store: routes/embed.ts). */
export const EMBED_TASK_VIDEO_BYTES = 100 * 1024 * 1024;

/** The largest JSON body of POST /embed-v2 and /embed-v2/tasks: their media may be inline, base64 (12 MB of media; larger goes by URL or asset). */
export const EMBED_V2_JSON_BYTES = 16 * 1024 * 1024;
const NO_BINARY_PARTS: ReadonlyMap<string, number> = new Map();

/**
 * Parses the body of a request that an endpoint will serve (endpoints/router.ts endpointOf) into
 * `req.body`, as its descriptor says (endpoints/endpoint.ts BodyRule):
 * JSON, urlencoded or multipart, as the SDKs send them (API-CONTRACT §2.2). A request no built
 * endpoint serves is not read at all (it is answered 404 or 501).
 * A GET or DELETE labelled JSON with no body is fine (js 0.1/0.2 always send the header).
 * In multipart, repeated keys become arrays, file parts of scalar fields are read as UTF-8 text
 * (py 0.4 sends `video_url` twice, once as a file), and empty dummy parts (`dummy`, `_`) are
 * ignored. The endpoint's binary parts stay bytes, and a body its handler streams is left to it.
 * All the text of a multipart body together is held to the JSON limit, so one request costs at
 * most that plus its binary parts (one image, or as many as binaryPartCounts allows).
 */
export function parseBody(limits: BodyLimits, media?: InlineMedia): RequestHandler {
  const json = express.json({ limit: limits.json, type: ['application/json', 'application/*+json'] });
  // POST /embed-v2 carries its media inline as base64: a 5 MB image is about 6.7 MB of JSON.
  const mediaJson = mediaJsonParser(limits, media);
  const urlencoded = express.urlencoded({ extended: false, limit: limits.json, parameterLimit: 1000 });
  return (req, res, next) => {
    const endpoint = endpointOf(res);
    const length = Number(req.headers['content-length'] ?? 0);
    const hasBody = req.headers['transfer-encoding'] !== undefined || length > 0;
    // An upload the handler streams to the blob store (after the rate check) is not read here.
    const streamed = endpoint?.body?.streamedWhen?.(req) ?? false;
    if (endpoint && !streamed && URL_NUL.test(req.originalUrl))
      return next(errors.invalid('url', 'The request URL may not contain the NUL character (%00).'));
    if (!endpoint || !hasBody || streamed) {
      req.body = {};
      return next();
    }
    // Text the services would store must hold no NUL (http/text-limits.ts).
    const checked = (error?: unknown) => (error ? next(error) : next(nulError(req.body)));
    if (req.is(['application/json', 'application/*+json'])) return (endpoint.body?.inlineMedia ? mediaJson : json)(req, res, checked);
    if (req.is('application/x-www-form-urlencoded')) return urlencoded(req, res, checked);
    if (req.is('multipart/form-data')) {
      const binaryParts = endpoint.body?.binaryParts ?? NO_BINARY_PARTS;
      return parseMultipart(req, limits, binaryParts, endpoint.body?.binaryPartCounts ?? NO_BINARY_PARTS).then((fields) => {
        req.body = fields;
        checked();
      }, next);
    }
    next(
      new ApiError(
        'unsupported_media_type',
        'Send the body as application/json, multipart/form-data or application/x-www-form-urlencoded.',
      ),
    );
  };
}

const URL_NUL = /%00/i;

/** Where the base64 media of /embed-v2 bodies goes, and what must happen before it is read. */
export interface InlineMedia {
  blobs: BlobStore | undefined;
  /** The blob key of one media value of the request. */
  newKey: (req: express.Request, res: express.Response) => string;
  /** Awaited before the first media value is read, with the body so far (the rate check: it may refuse). */
  beforeMedia: (
    req: express.Request,
    res: express.Response,
    partial: Record<string, unknown>,
    path: readonly (string | number)[],
  ) => Promise<void>;
}

/**
 * The JSON parser of /embed-v2 bodies: their base64 media streams into the blob store (http/media-json.ts)
 * and is removed when the response is done, unless the route keeps it (a task); without `media`, held whole.
 */
function mediaJsonParser(limits: BodyLimits, media: InlineMedia | undefined): RequestHandler {
  const bodyBytes = Math.max(limits.json, EMBED_V2_JSON_BYTES);
  if (!media) return express.json({ limit: bodyBytes, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => {
    readMediaJson(req, {
      blobs: media.blobs,
      newKey: () => media.newKey(req, res),
      bodyBytes,
      textBytes: limits.json,
      beforeMedia: (partial, path) => media.beforeMedia(req, res, partial, path),
    }).then(
      (upload) => {
        req.body = upload.body;
        trackStoredMedia(req, upload);
        res.once('close', () => void discardStoredMedia(req));
        next();
      },
      (error: unknown) => {
        // Refused before the whole body came (too large, the rate check, not JSON): the rest is not read.
        if (!req.complete) res.set('Connection', 'close');
        next(error);
      },
    );
  };
}

/**
 * Parts and fields one multipart body may have: the SDKs send a dozen at most (repeated
 * `search_options`, a dummy part). Each part costs a parser state and an event.
 */
export const MULTIPART_COUNTS = { fields: 100, parts: 100 };

/**
 * A busboy parser for the request (at most MULTIPART_COUNTS), or body_malformed without a boundary.
 * `fieldSize` and `fileSize` are the largest sizes allowed: busboy reports a part that reaches its
 * limit, so it is given one byte more.
 */
export function openMultipart(req: express.Request, limits: { fieldSize: number; fileSize?: number }): busboy.Busboy {
  const sizes = { fieldSize: limits.fieldSize + 1, ...(limits.fileSize !== undefined ? { fileSize: limits.fileSize + 1 } : {}) };
  try {
    return busboy({ headers: req.headers, limits: { ...MULTIPART_COUNTS, ...sizes } });
  } catch {
    throw new ApiError('body_malformed', 'The multipart body has no valid boundary.');
  }
}

/**
 * The bytes of text a multipart body holds in memory, fields and file parts read as text
 * together: `take` answers false (and reports payload_too_large) once they pass `limit`.
 */
export function textAllowance(limit: number, fail: (error: ApiError) => void): { take: (bytes: number) => boolean } {
  let used = 0;
  return {
    take: (bytes) => {
      used += bytes;
      if (used <= limit) return true;
      fail(new ApiError('payload_too_large', `The multipart body holds more than ${limit} bytes of text in all.`));
      return false;
    },
  };
}

/** The error for a second file part of a name that takes one file. */
export function duplicatePart(name: string): ApiError {
  return errors.invalid(name, `Send one ${name} part; this request has more than one.`);
}

/** The error for more parts of a binary name than its endpoint takes (BodyRule.binaryPartCounts). */
export function tooManyParts(name: string, max: number): ApiError {
  return errors.invalid(name, `Send at most ${max} ${name} parts; this request has more.`);
}

/** Multipart fields, where a repeated key becomes an array (API-CONTRACT §2.2). */
export function fieldCollector(): { fields: BodyFields; add: (name: string, value: string) => void } {
  const fields: BodyFields = {};
  return {
    fields,
    add: (name, value) => {
      const existing = fields[name];
      if (existing === undefined) fields[name] = value;
      else if (Array.isArray(existing)) existing.push(value);
      else fields[name] = [existing, value];
    },
  };
}

/** The failures every multipart parse reports alike: too many parts or fields, a malformed body, a client abort. */
export function onMultipartFailures(req: express.Request, parser: busboy.Busboy, fail: (error: ApiError) => void): void {
  parser.on('partsLimit', () => fail(new ApiError('payload_too_large', 'The multipart body has too many parts.')));
  parser.on('fieldsLimit', () => fail(new ApiError('payload_too_large', 'The multipart body has too many fields.')));
  parser.on('error', () => fail(new ApiError('body_malformed', 'The multipart body is malformed.')));
  req.on('aborted', () => fail(new ApiError('request_canceled_or_timed_out', 'The request was aborted by the client.')));
}

async function parseMultipart(
  req: express.Request,
  limits: BodyLimits,
  binaryParts: ReadonlyMap<string, number>,
  partCounts: ReadonlyMap<string, number>,
): Promise<BodyFields & Record<string, Buffer | Buffer[]>> {
  const fileLimit = Math.max(limits.field, ...binaryParts.values());
  const parser = openMultipart(req, { fieldSize: limits.field, fileSize: fileLimit });
  return new Promise((resolve, reject) => {
    const { fields, add } = fieldCollector();
    const binary: Record<string, Buffer> = {};
    // Names that take several parts: each part's bytes in the order sent (an empty part drops out).
    const several: Record<string, Buffer[]> = {};
    let failed = false;
    const fail = (error: ApiError) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      reject(error);
    };
    const text = textAllowance(limits.json, fail);
    const tooLarge = (name: string, limit: number) =>
      fail(new ApiError('payload_too_large', `The multipart field ${name} is larger than ${limit} bytes.`));

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) tooLarge(name, limits.field);
      else if (text.take(Buffer.byteLength(value))) add(name, value);
    });
    parser.on('file', (name, stream) => {
      const binaryLimit = binaryParts.get(name);
      const maxParts = partCounts.get(name) ?? 1;
      if (binaryLimit !== undefined && maxParts > 1) {
        const slots = (several[name] ??= []);
        if (failed || slots.length >= maxParts) {
          stream.resume();
          return failed || fail(tooManyParts(name, maxParts));
        }
        const slot = slots.push(Buffer.alloc(0)) - 1;
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          if (failed) return;
          size += chunk.length;
          if (size > binaryLimit) return tooLarge(name, binaryLimit);
          chunks.push(chunk);
        });
        stream.on('limit', () => tooLarge(name, binaryLimit));
        stream.on('end', () => {
          if (!failed) slots[slot] = Buffer.concat(chunks);
        });
        return;
      }
      if (binaryLimit !== undefined && (name in binary || failed)) {
        stream.resume();
        return failed || fail(duplicatePart(name));
      }
      const limit = binaryLimit ?? limits.field;
      const chunks: Buffer[] = [];
      let size = 0;
      if (binaryLimit !== undefined) binary[name] = Buffer.alloc(0); // taken: a second one is a duplicate
      stream.on('data', (chunk: Buffer) => {
        if (failed) return;
        size += chunk.length;
        if (size > limit) return tooLarge(name, limit);
        if (binaryLimit === undefined && !text.take(chunk.length)) return;
        chunks.push(chunk);
      });
      stream.on('limit', () => tooLarge(name, limit));
      stream.on('end', () => {
        if (failed) return;
        const bytes = Buffer.concat(chunks);
        if (binaryLimit !== undefined) {
          if (bytes.length > 0) binary[name] = bytes;
          else delete binary[name];
        } else if (bytes.length > 0) add(name, bytes.toString('utf8'));
      });
    });
    onMultipartFailures(req, parser, fail);
    parser.on('close', () => {
      if (failed) return;
      const lists: Record<string, Buffer | Buffer[]> = {};
      for (const [name, parts] of Object.entries(several)) {
        const sent = parts.filter((bytes) => bytes.length > 0);
        if (sent.length > 0) lists[name] = sent.length === 1 ? sent[0]! : sent;
      }
      resolve(Object.assign(fields, binary, lists));
    });
    req.pipe(parser);
  });
}

import { ApiError } from '@vus/core';
import busboy from 'busboy';
import express, { type RequestHandler } from 'express';

export interface BodyLimits {
  /** Bytes of a JSON or urlencoded body. */
  json: number;
  /** Bytes of one multipart text field, or of a file part read as text. */
  field: number;
}

export type BodyFields = Record<string, string | string[]>;

/**
 * Multipart file parts kept as bytes (not read as text), with their size limit: the images a
 * request carries in its body. They land in `req.body` as Buffers under their part name.
 */
export const BINARY_PARTS: ReadonlyMap<string, number> = new Map([['query_media_file', 5 * 1024 * 1024]]);

/**
 * Parses any body the SDKs send (API-CONTRACT §2.2) into `req.body`: JSON, urlencoded or multipart.
 * A GET or DELETE labelled JSON with no body is fine (js 0.1/0.2 always send the header).
 * In multipart, repeated keys become arrays, file parts of scalar fields are read as UTF-8 text
 * (py 0.4 sends `video_url` twice, once as a file), and empty dummy parts (`dummy`, `_`) are ignored.
 * The parts of BINARY_PARTS stay bytes.
 */
export function parseBody(limits: BodyLimits): RequestHandler {
  const json = express.json({ limit: limits.json, type: ['application/json', 'application/*+json'] });
  const urlencoded = express.urlencoded({ extended: false, limit: limits.json, parameterLimit: 1000 });
  return (req, res, next) => {
    const length = Number(req.headers['content-length'] ?? 0);
    const hasBody = req.headers['transfer-encoding'] !== undefined || length > 0;
    if (!hasBody) {
      req.body = {};
      return next();
    }
    if (req.is(['application/json', 'application/*+json'])) return json(req, res, next);
    if (req.is('application/x-www-form-urlencoded')) return urlencoded(req, res, next);
    if (req.is('multipart/form-data')) return parseMultipart(req, limits.field).then((fields) => {
      req.body = fields;
      next();
    }, next);
    next(new ApiError('unsupported_media_type', 'Send the body as application/json, multipart/form-data or application/x-www-form-urlencoded.'));
  };
}

const MULTIPART_COUNTS = { fields: 1000, parts: 1000 };

/** A busboy parser for the request (at most 1000 fields and parts), or body_malformed without a boundary. */
export function openMultipart(req: express.Request, limits: busboy.Limits): busboy.Busboy {
  try {
    return busboy({ headers: req.headers, limits: { ...MULTIPART_COUNTS, ...limits } });
  } catch {
    throw new ApiError('body_malformed', 'The multipart body has no valid boundary.');
  }
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

async function parseMultipart(req: express.Request, fieldLimit: number): Promise<BodyFields & Record<string, Buffer>> {
  const fileLimit = Math.max(fieldLimit, ...BINARY_PARTS.values());
  const parser = openMultipart(req, { fieldSize: fieldLimit, fileSize: fileLimit });
  return new Promise((resolve, reject) => {
    const { fields, add } = fieldCollector();
    const binary: Record<string, Buffer> = {};
    let failed = false;
    const fail = (error: ApiError) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      reject(error);
    };
    const tooLarge = (name: string, limit = fieldLimit) => fail(new ApiError('payload_too_large', `The multipart field ${name} is larger than ${limit} bytes.`));

    parser.on('field', (name, value, info) => (info.valueTruncated ? tooLarge(name) : add(name, value)));
    parser.on('file', (name, stream) => {
      const limit = BINARY_PARTS.get(name) ?? fieldLimit;
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) return tooLarge(name, limit);
        chunks.push(chunk);
      });
      stream.on('limit', () => tooLarge(name, limit));
      stream.on('end', () => {
        if (size > limit) return;
        const bytes = Buffer.concat(chunks);
        if (BINARY_PARTS.has(name)) {
          if (bytes.length > 0) binary[name] = bytes;
        } else if (bytes.length > 0) add(name, bytes.toString('utf8'));
      });
    });
    onMultipartFailures(req, parser, fail);
    parser.on('close', () => {
      if (!failed) resolve(Object.assign(fields, binary));
    });
    req.pipe(parser);
  });
}

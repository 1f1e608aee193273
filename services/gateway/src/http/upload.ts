import type { BlobStore } from '@vus/blob';
import { ApiError, newId } from '@vus/core';
import type { Request } from 'express';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { duplicatePart, fieldCollector, onMultipartFailures, openMultipart, textAllowance, type BodyFields } from './body';
import { nulError } from './text-limits';

/** A file part streamed into the blob store. */
export interface StoredFile {
  field: string;
  /** The client's file name (path stripped), or '' when it sent none. */
  filename: string;
  blobKey: string;
  size: number;
}

export interface MultipartUpload {
  /** Text fields, and file parts of other names read as UTF-8 text (py 0.4 sends `video_url` as a file). */
  fields: BodyFields;
  files: StoredFile[];
  /** Removes every stored file (the request failed after the upload). */
  discard(): Promise<void>;
}

export interface UploadLimits {
  /** Bytes of one streamed file. */
  fileBytes: number;
  /** A lower limit for the files of some parts (`transcription_file`: a few MiB, read whole by the worker). */
  fileBytesOf?: Readonly<Record<string, number>>;
  /** Bytes of a text field, or of a file part read as text. */
  fieldBytes: number;
  /** Bytes of all the text fields and file parts read as text together. */
  textBytes: number;
}

/**
 * Reads a multipart body whose `fileFields` parts may be large (a video): each such part streams
 * straight into the blob store with backpressure, never held in memory, and is all-or-nothing
 * there (without a store, such a part is refused). One part of each file field: a second is
 * refused. Empty file parts are ignored (dummy parts, js 0.2's dropped Buffers). The text held in
 * memory is bounded in all (`textBytes`). On any failure every file stored so far is removed.
 * Parts may come in any order. Errors name the part, never where it was being stored.
 */
export async function receiveMultipart(
  req: Request,
  blobs: BlobStore | undefined,
  fileFields: ReadonlySet<string>,
  limits: UploadLimits,
  /** The blob key of the next stored file (default: `uploads/<upload id>/<part>-<n>`). */
  keyOf?: (field: string) => string,
): Promise<MultipartUpload> {
  const uploadId = newId();
  const files: StoredFile[] = [];
  const discard = async () => {
    const store = blobs;
    if (store) await Promise.all(files.map((f) => store.delete(f.blobKey).catch(() => false)));
  };
  const parser = openMultipart(req, { fieldSize: limits.fieldBytes });
  return new Promise((resolve, reject) => {
    const { fields, add } = fieldCollector();
    const pending: Promise<unknown>[] = [];
    const abort = new AbortController();
    let failure: ApiError | undefined;
    const fail = (error: ApiError) => {
      if (failure) return;
      failure = error;
      abort.abort();
      req.unpipe(parser);
      req.resume();
      void Promise.allSettled(pending)
        .then(discard)
        .then(() => reject(error));
    };

    const text = textAllowance(limits.textBytes, fail);
    const fileParts = new Set<string>();
    let stored = 0;

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        fail(new ApiError('payload_too_large', `The multipart field ${name} is larger than ${limits.fieldBytes} bytes.`));
      else if (text.take(Buffer.byteLength(value))) add(name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (failure) return stream.resume();
      if (!fileFields.has(name)) {
        pending.push(
          readText(name, stream).catch(() => fail(new ApiError('body_malformed', `The multipart part ${name} could not be read.`))),
        );
      } else if (fileParts.has(name)) {
        stream.resume();
        fail(duplicatePart(name));
      } else {
        fileParts.add(name);
        pending.push(storeFile(name, stream, info.filename));
      }
    });
    const storeFile = async (name: string, stream: Readable, filename: string | undefined) => {
      if (!blobs) {
        stream.resume();
        return fail(
          new ApiError('service_unavailable', `File uploads (${name}) are not available: this server has no blob store configured.`),
        );
      }
      const blobKey = keyOf ? keyOf(name) : `uploads/${uploadId}/${name}-${stored++}`;
      const maxBytes = Math.min(limits.fileBytes, limits.fileBytesOf?.[name] ?? Infinity);
      try {
        const info = await blobs.put(blobKey, stream, { maxBytes, signal: abort.signal });
        if (info.size === 0) await blobs.delete(blobKey);
        else files.push({ field: name, filename: filename ? basename(filename.replace(/\\/g, '/')) : '', blobKey, size: info.size });
      } catch (error) {
        stream.resume();
        fail(storeFailure(name, error, maxBytes));
      }
    };
    const readText = async (name: string, stream: Readable) => {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of stream) {
        size += (chunk as Buffer).length;
        if (size > limits.fieldBytes) {
          stream.resume();
          return fail(new ApiError('payload_too_large', `The multipart field ${name} is larger than ${limits.fieldBytes} bytes.`));
        }
        if (!text.take((chunk as Buffer).length)) return stream.resume();
        chunks.push(chunk as Buffer);
      }
      const value = Buffer.concat(chunks).toString('utf8');
      if (value !== '') add(name, value);
    };
    onMultipartFailures(req, parser, fail);
    parser.on('close', () => {
      void Promise.all(pending).then(() => {
        const nul = nulError({ ...fields, ...Object.fromEntries(files.map((f) => [f.field, f.filename])) });
        if (nul) fail(nul);
        if (!failure) resolve({ fields, files, discard });
      });
    });
    req.pipe(parser);
  });
}

/**
 * What a client is told when its file could not be stored: the part and the limit when it was too
 * large; otherwise that the upload did not complete. The blob store's own message (its keys and
 * folders) stays on the server.
 */
function storeFailure(name: string, error: unknown, maxBytes: number): ApiError {
  if (error instanceof ApiError && error.code === 'payload_too_large') {
    return new ApiError('payload_too_large', `The ${name} file is larger than the limit of ${maxBytes} bytes.`);
  }
  return new ApiError('request_canceled_or_timed_out', `The upload of ${name} did not complete.`);
}

/**
 * The bytes of a synchronous embedding's media: sent inline, fetched from its URL (through the
 * SSRF guard), or read from the blob the gateway stored it in (an upload's, or an asset's file).
 */
import type { BlobStore } from '@vus/blob';
import { ApiError } from '@vus/core';
import type { MediaInput } from './embed';

/** Fetches a media URL (through the SSRF guard) as bytes; `param` names it in errors. */
export type FetchMedia = (url: string, param: string) => Promise<Buffer>;

/**
 * Where a request's media is: `kind` (data, url or blob_key) says which field holds it; empty: no
 * media. Any other kind (an asset id) is refused: the gateway resolves assets to their media first.
 */
export interface MediaSourceInput {
  kind: string;
  data?: Buffer | undefined;
  url?: string | undefined;
  blobKey?: string | undefined;
  filename?: string | undefined;
}

/** Reads media sources; without `blobs` a blob key is refused (not_implemented). */
export function mediaReader(fetchMedia: FetchMedia, blobs: BlobStore | undefined) {
  /** The source's bytes (undefined: no media); `param` names it in errors, `<param>_url` its URL's. */
  return async function mediaOf(source: MediaSourceInput | undefined, param: string): Promise<MediaInput | undefined> {
    if (!source || !source.kind) return undefined;
    const filename = source.filename || undefined;
    switch (source.kind) {
      case 'data':
        return { bytes: source.data ?? Buffer.alloc(0), ...(filename ? { filename } : {}) };
      case 'url':
        return { bytes: await fetchMedia(source.url ?? '', `${param}_url`), url: source.url ?? '', ...(filename ? { filename } : {}) };
      case 'blob_key': {
        if (!blobs)
          throw new ApiError('not_implemented', 'This server has no blob store for stored media: send the media itself or its URL.', {
            param,
          });
        const chunks: Buffer[] = [];
        for await (const chunk of await blobs.get(source.blobKey ?? '')) chunks.push(chunk as Buffer);
        return { bytes: Buffer.concat(chunks), ...(filename ? { filename } : {}) };
      }
      default:
        throw new ApiError('parameter_invalid', 'An asset is resolved to its media before embedding.', { param });
    }
  };
}

export type MediaReader = ReturnType<typeof mediaReader>;

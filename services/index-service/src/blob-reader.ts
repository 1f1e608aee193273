import type { BlobStore } from '@vus/blob';
import { isApiError } from '@vus/core';
import type { BlobReader } from './videos';

/** Thumbnails are small (tens of kB): read whole, so they fit one gRPC answer. */
export function blobReader(store: BlobStore): BlobReader {
  return {
    async read(key) {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of await store.get(key)) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      } catch (error) {
        if (isApiError(error) && error.code === 'resource_not_exist') return undefined;
        throw error;
      }
    },
  };
}

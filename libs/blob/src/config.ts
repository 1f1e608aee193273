import { ConfigError } from '@vus/core';
import { z } from 'zod';
import { FileBlobStore } from './fs-store';
import type { BlobStore } from './store';

export type BlobStoreConfig = { kind: 'fs'; root: string } | { kind: 's3' };

const S3_NOT_BUILT = 'S3-compatible blob storage is not built yet; set BLOB_STORE=fs (files under BLOB_DIR) or leave BLOB_STORE unset.';

/**
 * The environment variables of the blob store, to merge into a service's config schema:
 * `BLOB_STORE` (`fs`, the default; `s3` fails start-up with a clear message) and `BLOB_DIR`.
 */
export const blobEnvShape = {
  BLOB_STORE: z
    .enum(['fs', 's3'])
    .default('fs')
    .refine((kind) => kind === 'fs', { message: S3_NOT_BUILT }),
  BLOB_DIR: z.string().min(1).optional(),
};

/** Opens the configured store. `s3` is a ConfigError until an S3 implementation exists. */
export async function openBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  switch (config.kind) {
    case 'fs':
      return FileBlobStore.open(config.root);
    case 's3':
      throw new ConfigError([`BLOB_STORE: ${S3_NOT_BUILT}`]);
  }
}

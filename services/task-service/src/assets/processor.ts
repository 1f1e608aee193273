import type { BlobStore } from '@vus/blob';
import { isApiError, type Clock, type Logger } from '@vus/core';
import { openUrl, type FetchPolicy } from '@vus/fetch';
import { createJobStore, JobRunner, runnerName, type JobOutcome } from '@vus/jobs';
import { isMediaError, probe } from '@vus/media';
import type { Database } from '@vus/db';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assetBlobKey, type AssetMedia } from './assets';
import { sniffMedia, SNIFF_BYTES, videoMime } from './sniff';
import { PROCESS_ASSET_JOB, type AssetProcessingStore } from './store';

/** Reads the first SNIFF_BYTES bytes of a blob. */
export async function blobHead(blobs: BlobStore, key: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.get(key, { start: 0, end: SNIFF_BYTES - 1 })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface AssetProcessorDeps {
  store: AssetProcessingStore;
  blobs: BlobStore;
  fetchPolicy: FetchPolicy;
  clock: Clock;
  logger: Logger;
}

type Outcome = { media: AssetMedia } | { failure: { code: string; message: string } };

/** Why a file is not acceptable media, as the asset shows it; internal errors never leak. */
function failureOf(error: unknown): { code: string; message: string } | undefined {
  if (isMediaError(error) || isApiError(error)) return { code: error.code, message: error.message };
  return undefined;
}

/**
 * Makes an asset `ready` or `failed`: fetches its URL (through @vus/fetch's address rules) into
 * the blob store, sniffs the first bytes (an image or audio file by its signature; text and
 * playlists refused), and probes anything that may be a video with libs/media, which opens only
 * real containers — so a playlist or a page named .mp4 fails here, not in a later indexing task.
 */
export class AssetProcessor {
  constructor(private readonly deps: AssetProcessorDeps) {}

  /** `lastAttempt`: no retry is left, so a passing problem fails the asset rather than leave it processing. */
  async process(assetId: string, signal: AbortSignal, lastAttempt: () => boolean = () => false): Promise<JobOutcome> {
    const { store, clock } = this.deps;
    const asset = await store.load(assetId);
    if (!asset || asset.status !== 'processing') return { kind: 'succeeded' };
    let outcome: Outcome;
    try {
      let key = asset.blobKey;
      if (!key) {
        if (!asset.sourceUrl) return { kind: 'failed', error: 'asset without file or URL' };
        key = assetBlobKey(asset.id);
        const body = await openUrl(asset.sourceUrl, 'url', this.deps.fetchPolicy, signal);
        await this.deps.blobs.put(key, body, { maxBytes: this.deps.fetchPolicy.maxBytes, signal });
        await store.fetched(asset.id, key, clock.now());
      }
      outcome = await this.examine(key, signal);
    } catch (error) {
      if (signal.aborted) return { kind: 'lost' };
      const failure = failureOf(error);
      if (!failure && !lastAttempt()) {
        this.deps.logger.warn({ err: error, assetId }, 'asset processing failed; will retry');
        return { kind: 'retry', error: error instanceof Error ? error.message : String(error) };
      }
      outcome = {
        failure: failure ?? { code: 'internal_error', message: 'The asset could not be processed because of an internal error.' },
      };
    }
    await store.finish(asset.id, outcome, clock.now());
    return { kind: 'succeeded' };
  }

  private async examine(key: string, signal: AbortSignal): Promise<Outcome> {
    const { blobs } = this.deps;
    const info = await blobs.stat(key);
    const size = info?.size ?? 0;
    const sniffed = sniffMedia(await blobHead(blobs, key));
    if (sniffed.kind === 'refused') return { failure: { code: 'unsupported_file_type', message: sniffed.reason } };
    const none = { duration: null, width: null, height: null, fps: null };
    if (sniffed.kind !== 'probe') return { media: { assetType: sniffed.kind, mime: sniffed.mime, size, ...none } };
    const dir = await mkdtemp(join(tmpdir(), 'vus-asset-'));
    try {
      const file = join(dir, 'media');
      await blobs.download(key, file);
      const probed = await probe(file, { signal });
      return {
        media: {
          assetType: 'video',
          mime: videoMime(probed.container),
          size,
          duration: probed.durationSec,
          width: probed.video.width,
          height: probed.video.height,
          fps: probed.video.fps,
        },
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** The job runner of asset processing, as one of the kit's background jobs; `wake` after a new asset. */
export function assetProcessingJob(db: Database, deps: AssetProcessorDeps) {
  const processor = new AssetProcessor(deps);
  const runner = new JobRunner({
    store: createJobStore(db),
    kinds: {
      [PROCESS_ASSET_JOB]: {
        run: (job, context) => processor.process(job.subjectId, context.signal, () => context.retryAt() === null),
        retry: { baseMs: 5_000, maxMs: 120_000 },
        maxAttempts: 3,
      },
    },
    concurrency: 2,
    leaseMs: 120_000,
    pollMs: 5_000,
    owner: runnerName(),
    clock: deps.clock,
    logger: deps.logger.child({ component: 'asset-processor' }),
  });
  return {
    job: {
      name: 'asset-processor',
      start: () => {
        runner.start();
        return { stop: () => runner.stop() };
      },
    },
    wake: () => runner.wake(),
    runner,
  };
}

/**
 * The indexing worker's side of index-service, for tests: videos are created through the
 * CreateVideo and PutVideoArtifacts RPCs, exactly as task-service's worker does in production.
 */
import { newId } from '@vus/core';
import { callUnary, createClient, loadProto, toMetadataValues, toTimestamp, type PlainMetadataValue } from '@vus/grpc';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { VideoArtifacts__Input } from '@vus/grpc/types/index/v1/VideoArtifacts';
import type { BlobStore } from '@vus/blob';
import { runFfmpeg } from '@vus/media';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeUpload {
  filename?: string;
  duration?: number;
  fps?: number;
  width?: number;
  height?: number;
  size?: number;
  userMetadata?: Record<string, Exclude<PlainMetadataValue, null>>;
  createdAt?: Date;
}

export function workerClient(indexServiceAddress: string) {
  const client: IndexServiceClient = createClient(loadProto().proto.vus.index.v1.IndexService, indexServiceAddress);
  return {
    async createVideo(orgId: string, indexId: string, upload: FakeUpload = {}): Promise<Video> {
      const request = {
        index_id: indexId,
        video_id: newId(),
        system_metadata: {
          filename: upload.filename ?? 'clip.mp4',
          duration: upload.duration ?? 10,
          fps: upload.fps ?? 25,
          width: upload.width ?? 1280,
          height: upload.height ?? 720,
          size: upload.size ?? 1_000_000,
        },
        user_metadata: toMetadataValues(upload.userMetadata ?? {}),
        extractors_run: ['visual', 'conversation', 'text_in_video'],
        media_blob_key: 'uploads/clip.mp4',
        created_at: upload.createdAt ? toTimestamp(upload.createdAt) : null,
      };
      return callUnary<Video>((md, opts, cb) => client.CreateVideo(request, md, opts, cb), { orgId });
    },
    async putArtifacts(orgId: string, indexId: string, videoId: string, artifacts: VideoArtifacts__Input): Promise<void> {
      await callUnary((md, opts, cb) => client.PutVideoArtifacts({ index_id: indexId, video_id: videoId, artifacts }, md, opts, cb), {
        orgId,
      });
    },
    close: () => client.close(),
  };
}

/** A real JPEG made by ffmpeg, put into the blob store as the worker would; returns its bytes. */
export async function writeThumbnail(blobs: BlobStore, key: string, color: string): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'vus-thumb-'));
  try {
    const path = join(dir, 'thumbnail.jpg');
    await runFfmpeg(['-f', 'lavfi', '-i', `color=c=${color}:size=160x90`, '-frames:v', '1', path]);
    await blobs.put(key, createReadStream(path));
    return readFileSync(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

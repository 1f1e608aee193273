/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Entity search's faces through the worker's frame pass (issue 32 §1), on real photographs
 * (face-video.ts): embedded by the bundled face models as indexing does (BlazeFace finds faces,
 * face-api's recogniser embeds them), joined into face tracks; an entity's reference image embedded
 * as task-service does (referenceFace). The person is matched where she is on screen, altered as
 * footage alters her (smaller, mirrored, recompressed), and the other women are not.
 */
import { probe } from '@vus/media';
import { blazeFaceProvider, closestFace, faceRecognitionProvider, ModelRegistry } from '@vus/models';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceFace } from '../src/entities/reference-faces';
import { faceTracks, type FaceTrack } from '../src/worker/extract/face-tracks';
import { analyseFrames } from '../src/worker/extract/frames';
import { faceVideo, FRAME_WIDTH, type FaceVideo } from './face-video';

jest.setTimeout(240_000);

describe('face tracks through the frame pass, on real faces', () => {
  const registry = new ModelRegistry([blazeFaceProvider(), faceRecognitionProvider()]);
  const dir = mkdtempSync(join(tmpdir(), 'vus-face-tracks-'));
  let video: FaceVideo;
  let tracks: FaceTrack[];
  let reference: { her: Float32Array; other: Float32Array };

  beforeAll(async () => {
    const embedder = await registry.get('face_embedder');
    const faceDetector = await registry.get('face_detector');
    video = await faceVideo(dir, embedder);
    reference = {
      her: referenceFace(await embedder.embedFaces(video.portraits.her))!.embedding,
      other: referenceFace(await embedder.embedFaces(video.portraits.other))!.embedding,
    };
    const probed = await probe(video.path);
    const frames = await analyseFrames(
      video.path,
      probed,
      { faceDetector, faceEmbedder: embedder },
      { fps: 1, width: FRAME_WIDTH, maxThumbnails: 2 },
    );
    tracks = faceTracks(frames.faces, { step: frames.step, durationSec: probed.durationSec });
  });

  afterAll(async () => {
    await registry.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const matched = (face: Float32Array) =>
    tracks.filter((t) => closestFace([face], t.embedding)?.match).map((t) => [Math.round(t.startSec), Math.round(t.endSec)]);

  it('makes one track per person on screen, each as long as the scene', () => {
    expect(tracks.map((t) => [Math.round(t.startSec), Math.round(t.endSec)])).toEqual([
      [0, 4],
      [4, 8],
      [8, 12],
    ]);
  });

  it('matches her reference face where she is on screen, mirrored, smaller and recompressed too', () => {
    expect(matched(reference.her)).toEqual([
      [0, 4],
      [8, 12],
    ]);
  });

  it('matches the second woman only where she is, never her', () => {
    expect(matched(reference.other)).toEqual([[4, 8]]);
  });

  it('matches none of the video with the third woman of the photo, who is never on screen', () => {
    expect(matched(video.faces[2].embedding)).toEqual([]);
  });
});

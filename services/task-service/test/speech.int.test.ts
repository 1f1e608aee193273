/*
 * The speech recogniser's absence (issue 22): with PocketSphinx hidden (its binary is not where the
 * configuration says) and no Whisper in MODELS_DIR, a video with audio and no subtitles is still
 * indexed, and the task says why it has no speech.
 */
import { newId } from '@vus/core';
import type { VideoArtifacts } from '@vus/grpc/types/index/v1/VideoArtifacts';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { createModelRegistry, POCKETSPHINX_DEFAULTS } from '@vus/models';
import { textScenesVideo } from '@vus/testing';
import { join } from 'node:path';
import { startTaskStack, type TaskStack } from './stack';

let stack: TaskStack;
/** The stack's folder: MODELS_DIR and the hidden binary are under it. */
let stackDir: string;

beforeAll(async () => {
  stack = await startTaskStack({
    name: 'speech',
    worker: ({ dir }) => {
      stackDir = dir;
      return {
        models: createModelRegistry({
          modelsDir: join(dir, 'no-models'),
          allowDownload: false,
          clipModel: 'none/clip',
          whisperModel: 'none/whisper',
          pocketsphinx: { ...POCKETSPHINX_DEFAULTS, binary: join(dir, 'hidden', 'pocketsphinx_continuous') },
        }),
      };
    },
  });
}, 60_000);

afterAll(() => stack?.stop());

it('indexes a video with speech and no subtitles without a recogniser, and says why there is no transcription', async () => {
  const org = newId();
  const indexId = await stack.createIndex(org, ['conversation']);
  const task = await stack.rpc<Task>(org, async (md, opts, cb) =>
    stack.tasks.CreateTask(
      { index_id: indexId, video_blob_key: await stack.upload((await textScenesVideo()).path), filename: 'talk.mp4' },
      md,
      opts,
      cb,
    ),
  );
  const done = await stack.waitForTask(org, task.id);
  expect(done).toMatchObject({ status: 'ready', extractors_run: [] });
  expect(done.extractors_skipped).toEqual([
    {
      name: 'speech',
      reason: expect.stringMatching(
        /^whisper: .*; pocketsphinx: the speech recogniser is not installed: pocketsphinx_continuous was not found \(install the Debian packages pocketsphinx pocketsphinx-en-us\)$/,
      ),
    },
  ]);
  // Neither PocketSphinx's configured path nor MODELS_DIR is shown to the user.
  expect(done.extractors_skipped[0]?.reason).not.toContain('hidden');
  expect(done.extractors_skipped[0]?.reason).not.toContain(stackDir);
  const artifacts = await stack.rpc<VideoArtifacts>(org, (md, opts, cb) =>
    stack.indexes.GetVideoArtifacts({ index_id: indexId, video_id: done.video_id, kinds: ['transcription'] }, md, opts, cb),
  );
  expect(artifacts.transcription).toEqual([]);
}, 60_000);

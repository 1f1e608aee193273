import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The generator is the project's script, so what tests load is what `node scripts/models/make-tiny-models.js` writes.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require('../../../../scripts/models/make-tiny-models.js') as {
  makeTinyModels(dir: string): { clip: string; whisper?: string; clap?: string };
};

export interface TinyModels {
  readonly dir: string;
  readonly ids: { clip: string; whisper?: string; clap?: string };
  remove(): Promise<void>;
}

/** Generates the tiny models into a fresh temporary MODELS_DIR. */
export async function makeTinyModels(): Promise<TinyModels> {
  const dir = await mkdtemp(join(tmpdir(), 'vus-models-'));
  return { dir, ids: generator.makeTinyModels(dir), remove: () => rm(dir, { recursive: true, force: true }) };
}

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Bump when generators change in a way the spec hash does not see (encoder settings, layout). */
const GENERATOR_VERSION = 4;

/**
 * Generated fixtures live in the OS temp folder, named by a hash of what they are made of: a test
 * run generates each one once (jest workers share them), and later runs reuse them until the spec
 * or generator changes. Nothing is ever written to the repository.
 */
export function fixtureDir(): string {
  return join(tmpdir(), `vus-fixtures-${userInfo().uid}`);
}

/**
 * Returns the cached file for `spec`, building it with `build(tmpPath)` first if needed. Builds go
 * to a private temp name and are renamed into place, so parallel jest workers never see half a file.
 */
export async function cachedFixture(
  name: string,
  extension: string,
  spec: unknown,
  build: (outPath: string) => Promise<void>,
): Promise<string> {
  const hash = createHash('sha256')
    .update(JSON.stringify({ v: GENERATOR_VERSION, spec }))
    .digest('hex')
    .slice(0, 16);
  const dir = fixtureDir();
  const path = join(dir, `${name}-${hash}.${extension}`);
  if (await exists(path)) return path;
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${name}-${hash}-${process.pid}-${randomBytes(4).toString('hex')}.${extension}`);
  try {
    await build(tmp);
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
  return path;
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size > 0;
  } catch {
    return false;
  }
}

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written for the `keys` CLI, which talks to the running server's admin API. */
export const EMBEDDED_STATE_FILE = 'embedded.json';

export interface EmbeddedState {
  base_url: string;
  admin_token: string;
  pid: number;
}

/**
 * What embedded mode writes is its user's alone: the umask of this process while it runs (restored
 * by the returned function). Its databases, blobs, work files, mail and the files ffmpeg writes (a
 * child inherits the umask) come out owner-only, each creator unchanged. Set here and not in
 * FileBlobStore or libs/db: cluster-mode services, which may share a BLOB_DIR volume between
 * containers, keep the operator's umask.
 */
export function writeOwnerOnly(): () => void {
  const previous = process.umask(0o077);
  return () => void process.umask(previous);
}

/** What a data folder from before this rule kept readable by others: the secrets and the blobs. */
const OWNER_ONLY_ENTRIES = ['blobs', 'admin-token', 'webhook-secret-key', 'server.pid', 'embedded.json'];

/**
 * DATA_DIR, created or existing, open to its owner only (0700): nothing in it can then be reached by
 * another user. Its secrets and blobs/ of an older start lose their group and other bits too.
 */
export function makeDataDirPrivate(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  for (const entry of OWNER_ONLY_ENTRIES) {
    const path = join(dataDir, entry);
    if (existsSync(path)) chmodSync(path, statSync(path).mode & 0o700);
  }
}

/** One PGlite folder cannot be opened by two processes: refuse to start a second server on it. */
export function lockDataDir(dataDir: string): () => void {
  const lockFile = join(dataDir, 'server.pid');
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, 'utf8'));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new Error(`Another server (pid ${pid}) is using ${dataDir}. Stop it or set DATA_DIR.`);
    }
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The admin token: the operator's, or one generated on first start and kept in the data folder. */
export function adminToken(dataDir: string, configured: string | undefined): string {
  return keptSecret(dataDir, 'admin-token', configured, () => randomBytes(24).toString('base64url'));
}

/**
 * The key webhook signing secrets are encrypted with: the operator's (WEBHOOK_SECRET_KEY), or one
 * generated on first start and kept in the data folder (losing it loses the endpoints' secrets).
 */
export function webhookSecretKey(dataDir: string, configured: string | undefined): string {
  return keptSecret(dataDir, 'webhook-secret-key', configured, () => randomBytes(32).toString('base64'));
}

/** `configured`, else the file's content, else `generate()` written to the file (owner-only). */
function keptSecret(dataDir: string, name: string, configured: string | undefined, generate: () => string): string {
  if (configured) return configured;
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = generate();
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** The state file the `keys` CLI reads; removed on stop. */
export function writeState(dataDir: string, state: EmbeddedState): () => void {
  const file = join(dataDir, EMBEDDED_STATE_FILE);
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

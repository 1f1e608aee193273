import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/**
 * Fetches a model's files from a Hugging Face-style hub into `<MODELS_DIR>/<model id>/` (the layout
 * transformers.js loads), for `npm run models -- pull`. The hub's tree listing gives each file's
 * size and checksum (sha256 for LFS files, the git blob id for small ones); a download goes to
 * `<file>.part` and resumes from there with a Range request after a broken connection or a new run,
 * and a file is renamed into place only once its checksum matches. What was pulled is recorded in
 * a manifest so that `verify` can re-check it later without the network.
 */

export const MANIFEST_FILE = '.vus-pulled.json';

/** What the hub says about one file. */
export interface HubFileFacts {
  readonly path: string;
  readonly size: number;
  /** sha256 of the content (LFS files). */
  readonly sha256?: string;
  /** The git blob id (sha1 of `blob <size>\0` + content): small files kept in git. */
  readonly gitOid?: string;
}

export interface PullProgress {
  readonly file: string;
  readonly received: number;
  readonly total?: number;
}

export interface PullOptions {
  /** The hub's base URL (HF_ENDPOINT), e.g. `https://huggingface.co`. */
  readonly endpoint: string;
  readonly modelId: string;
  readonly revision?: string;
  readonly files: readonly string[];
  readonly modelsDir: string;
  /** HF_TOKEN, sent as a bearer token (gated or private models). */
  readonly token?: string;
  readonly onProgress?: (progress: PullProgress) => void;
  /** Attempts per file; each one resumes where the last stopped. */
  readonly attempts?: number;
  /** A download with no byte for this long is broken off (and resumed by the next attempt). */
  readonly idleTimeoutMs?: number;
}

export interface PulledFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  /** `present`: already there with the hub's checksum; `downloaded`: fetched now (perhaps resumed). */
  readonly state: 'present' | 'downloaded';
}

interface Manifest {
  readonly model: string;
  readonly revision: string;
  readonly files: readonly { path: string; size: number; sha256: string }[];
}

/** `owner/name` of letters, digits, `-`, `_` and `.`, never `..`: it becomes a folder name. */
export function isModelId(id: string): boolean {
  return /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/.test(id) && !id.includes('..');
}

/** The download URL of one file, hub style: `<endpoint>/<id>/resolve/<revision>/<path>`. Pure. */
export function hubFileUrl(endpoint: string, modelId: string, revision: string, path: string): string {
  const segments = path.split('/').map(encodeURIComponent).join('/');
  return `${endpoint.replace(/\/+$/, '')}/${modelId}/resolve/${encodeURIComponent(revision)}/${segments}`;
}

/** The hub's recursive tree listing of a model as facts per file path (the hub's JSON, checked). Pure. */
export function parseHubListing(body: unknown): Map<string, HubFileFacts> {
  if (!Array.isArray(body)) throw new Error('the hub answered a listing that is not a list');
  const facts = new Map<string, HubFileFacts>();
  for (const entry of body as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { type, path, size, oid, lfs } = entry as Record<string, unknown>;
    if (type !== 'file' || typeof path !== 'string' || typeof size !== 'number') continue;
    const lfsOid = typeof lfs === 'object' && lfs !== null ? (lfs as Record<string, unknown>).oid : undefined;
    facts.set(path, {
      path,
      size,
      ...(typeof lfsOid === 'string' ? { sha256: lfsOid } : typeof oid === 'string' ? { gitOid: oid } : {}),
    });
  }
  return facts;
}

/** A file's sha256 and git blob id, read as a stream (model files are hundreds of MB). */
export async function fileDigests(file: string): Promise<{ size: number; sha256: string; gitOid: string }> {
  const { size } = await stat(file);
  const sha256 = createHash('sha256');
  const git = createHash('sha1').update(`blob ${size}\0`);
  for await (const chunk of createReadStream(file)) {
    sha256.update(chunk as Buffer);
    git.update(chunk as Buffer);
  }
  return { size, sha256: sha256.digest('hex'), gitOid: git.digest('hex') };
}

/** Why a file on disk is not the hub's, or undefined when it is (size and whichever checksum the hub gave). Pure. */
export function mismatch(actual: { size: number; sha256: string; gitOid: string }, expected: HubFileFacts | undefined): string | undefined {
  if (!expected) return undefined;
  if (actual.size !== expected.size) return `${actual.size} bytes, the hub lists ${expected.size}`;
  if (expected.sha256 && expected.sha256 !== actual.sha256) return 'sha256 differs from the hub';
  if (expected.gitOid && expected.gitOid !== actual.gitOid) return 'checksum differs from the hub';
  return undefined;
}

function headers(token: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
}

/** The hub's facts about a model's files; undefined when the hub has no listing API (a plain mirror). */
export async function fetchHubListing(
  options: Pick<PullOptions, 'endpoint' | 'modelId' | 'revision' | 'token'>,
): Promise<Map<string, HubFileFacts> | undefined> {
  const revision = options.revision ?? 'main';
  const url = `${options.endpoint.replace(/\/+$/, '')}/api/models/${options.modelId}/tree/${encodeURIComponent(revision)}?recursive=true`;
  const response = await fetch(url, { headers: headers(options.token), signal: AbortSignal.timeout(30_000) });
  if (response.status === 401 || response.status === 403) {
    throw new Error(`the hub refused ${options.modelId} (${response.status}): a gated model needs HF_TOKEN`);
  }
  if (response.status === 404) {
    // A hub answers 404 for an unknown model; a plain file mirror has no API at all. Tell them apart by the config file.
    const config = await fetch(hubFileUrl(options.endpoint, options.modelId, revision, 'config.json'), {
      method: 'HEAD',
      headers: headers(options.token),
      signal: AbortSignal.timeout(30_000),
    });
    if (!config.ok) throw new Error(`the hub has no model ${options.modelId} at revision ${revision}`);
    return undefined;
  }
  if (!response.ok) throw new Error(`the hub's listing of ${options.modelId} answered ${response.status}`);
  return parseHubListing(await response.json());
}

/** Streams one file into `<target>.part`, resuming from its length; returns when the body has ended. */
async function downloadOnce(options: PullOptions, file: string, part: string, total: number | undefined): Promise<void> {
  const have = await stat(part).then(
    (s) => s.size,
    () => 0,
  );
  if (total !== undefined && have === total) return;
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), options.idleTimeoutMs ?? 60_000);
  const response = await fetch(hubFileUrl(options.endpoint, options.modelId, options.revision ?? 'main', file), {
    headers: headers(options.token, have > 0 ? { range: `bytes=${have}-` } : {}),
    signal: idle.signal,
  });
  if (!response.ok || !response.body) {
    clearTimeout(timer);
    if (response.status === 416) return rm(part, { force: true }); // the part is longer than the file: start again
    throw new Error(`${file}: the hub answered ${response.status}`);
  }
  // 206: the server resumes where the part ends; 200: it ignored the range, so the part starts again.
  const resumed = response.status === 206 && have > 0;
  let received = resumed ? have : 0;
  const lengthHeader = Number(response.headers.get('content-length'));
  const expected = total ?? (Number.isFinite(lengthHeader) && lengthHeader > 0 ? received + lengthHeader : undefined);
  // Each chunk is on disk before the next is read, so a connection that breaks leaves every byte
  // received so far in the part for the next attempt to resume from.
  const output = await open(part, resumed ? 'a' : 'w');
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), options.idleTimeoutMs ?? 60_000);
      await output.write(chunk);
      received += chunk.length;
      options.onProgress?.({ file, received, ...(expected !== undefined ? { total: expected } : {}) });
    }
  } finally {
    clearTimeout(timer);
    await output.close();
  }
}

/** One file: present and right, or downloaded (resumed across attempts) and checked, then renamed into place. */
async function pullFile(options: PullOptions, folder: string, file: string, facts: HubFileFacts | undefined): Promise<PulledFile> {
  const target = join(folder, file);
  const present = await fileDigests(target).catch(() => undefined);
  // Without the hub's facts (a plain mirror) a present file is kept: there is nothing to check it against.
  if (present && mismatch(present, facts) === undefined) {
    return { path: file, size: present.size, sha256: present.sha256, state: 'present' };
  }
  await mkdir(dirname(target), { recursive: true });
  const part = `${target}.part`;
  const attempts = options.attempts ?? 3;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await downloadOnce(options, file, part, facts?.size);
      const digests = await fileDigests(part);
      const wrong = mismatch(digests, facts);
      if (wrong) {
        await rm(part, { force: true });
        throw new Error(`${file}: ${wrong}; the partial download was removed`);
      }
      await rename(part, target);
      return { path: file, size: digests.size, sha256: digests.sha256, state: 'downloaded' };
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** Pulls every file of a model, then records them in the model folder's manifest. */
export async function pullModel(options: PullOptions): Promise<PulledFile[]> {
  if (!isModelId(options.modelId)) throw new Error(`"${options.modelId}" is not a model id (owner/name)`);
  const folder = join(resolve(options.modelsDir), options.modelId);
  const listing = await fetchHubListing(options);
  const missing = listing ? options.files.filter((file) => !listing.has(file)) : [];
  if (missing.length > 0) throw new Error(`${options.modelId} on the hub lacks ${missing.join(', ')}`);
  const pulled: PulledFile[] = [];
  for (const file of options.files) pulled.push(await pullFile(options, folder, file, listing?.get(file)));
  const manifest: Manifest = {
    model: options.modelId,
    revision: options.revision ?? 'main',
    files: pulled.map(({ path, size, sha256 }) => ({ path, size, sha256 })),
  };
  await writeFile(join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return pulled;
}

export interface VerifyReport {
  /** `verified`: every file matches what was pulled; `unrecorded`: files present, not pulled by this tool; `missing` / `damaged`. */
  readonly state: 'verified' | 'unrecorded' | 'missing' | 'damaged';
  readonly problems: readonly string[];
  readonly bytes: number;
}

/** Re-checks a model folder against its manifest, offline: every file present, sizes and sha256 as pulled. */
export async function verifyModel(modelsDir: string, modelId: string, files: readonly string[]): Promise<VerifyReport> {
  const folder = join(resolve(modelsDir), modelId);
  const manifest = await readFile(join(folder, MANIFEST_FILE), 'utf8')
    .then((text) => JSON.parse(text) as Manifest)
    .catch(() => undefined);
  const recorded = new Map((manifest?.files ?? []).map((file) => [file.path, file]));
  const problems: string[] = [];
  let bytes = 0;
  let absent = 0;
  for (const file of files) {
    const digests = await fileDigests(join(folder, file)).catch(() => undefined);
    if (!digests) {
      absent++;
      problems.push(`${file} is missing`);
      continue;
    }
    bytes += digests.size;
    const expected = recorded.get(file);
    if (expected && (expected.size !== digests.size || expected.sha256 !== digests.sha256)) {
      problems.push(`${file} differs from what was pulled`);
    }
  }
  if (absent === files.length) return { state: 'missing', problems, bytes };
  if (problems.length > 0) return { state: 'damaged', problems, bytes };
  return { state: manifest ? 'verified' : 'unrecorded', problems, bytes };
}

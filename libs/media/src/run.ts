import { spawn, type ChildProcess } from 'node:child_process';
import { MediaError } from './errors';
import {
  chooseMediaTool,
  describeSource,
  MEDIA_TOOL_ENV,
  processToolLookup,
  toolEnv,
  toolVersion,
  type MediaTool,
  type ResolvedMediaTool,
} from './tools';

/** Options every media operation accepts. */
export interface MediaRunOptions {
  /** Kill ffmpeg/ffprobe (SIGKILL) after this many milliseconds. Each operation has its own default. */
  timeoutMs?: number;
  /** Kill the child when this fires (the worker's task was cancelled or its lease lost). */
  signal?: AbortSignal;
}

export interface MediaToolPaths {
  ffmpeg: string;
  ffprobe: string;
}

const resolvedTools = new Map<MediaTool, ResolvedMediaTool>();

/**
 * Sets the binaries to run, overriding the lookup: `FFMPEG_PATH`/`FFPROBE_PATH`, then the
 * registry package for this platform, then PATH (see chooseMediaTool).
 */
export function configureMediaTools(paths: Partial<MediaToolPaths>): void {
  for (const tool of ['ffmpeg', 'ffprobe'] as const) {
    const path = paths[tool];
    if (path) resolvedTools.set(tool, { tool, path, source: 'env' });
  }
}

/** The binary a tool runs from, looked up once per process. */
export function mediaTool(tool: MediaTool): ResolvedMediaTool {
  let resolved = resolvedTools.get(tool);
  if (!resolved) {
    resolved = chooseMediaTool(tool, processToolLookup());
    resolvedTools.set(tool, resolved);
  }
  return resolved;
}

interface SpawnOptions extends MediaRunOptions {
  timeoutMs: number;
  /** Called with every complete stderr line (showinfo output, for example). */
  onStderrLine?: (line: string) => void;
  /** Extra output pipes after stdout/stderr (fd 3, 4 …). */
  extraPipes?: number;
}

export interface RunningTool {
  child: ChildProcess;
  /** Resolves when the tool exits with 0; rejects with a MediaError otherwise. */
  finished: Promise<void>;
  /** Kills the child if it still runs (an early `break` out of a frame loop). Idempotent. */
  stop(): void;
  /**
   * Stops the timeout's clock while the caller works on what the tool gave (ffmpeg waits for a
   * frame loop's consumer): only the tool's own time counts. The returned function restarts it.
   */
  holdClock(): () => void;
}

const STDERR_TAIL_BYTES = 4096;

/**
 * Starts ffmpeg/ffprobe with an argument list (never a shell string) and watches it: a timeout or
 * an abort kills it with SIGKILL, its stderr tail is kept for the error, and exit codes become
 * MediaErrors. `classify` turns a non-zero exit's stderr into a more specific failure.
 */
export function startTool(
  tool: MediaTool,
  args: readonly string[],
  options: SpawnOptions,
  classify?: (stderr: string) => MediaError | undefined,
): RunningTool {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
  for (let i = 0; i < (options.extraPipes ?? 0); i++) stdio.push('pipe');
  const resolved = mediaTool(tool);
  const child = spawn(resolved.path, args, { stdio, env: toolEnv(resolved) });

  let stderrTail = '';
  let partialLine = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_BYTES);
    if (!options.onStderrLine) return;
    const lines = (partialLine + text).split(/\r?\n/);
    partialLine = lines.pop() ?? '';
    for (const line of lines) options.onStderrLine(line);
  });

  let killedFor: 'timeout' | 'aborted' | undefined;
  const kill = (reason: 'timeout' | 'aborted') => {
    if (child.exitCode === null && child.signalCode === null) {
      killedFor ??= reason;
      child.kill('SIGKILL');
    }
  };
  // The timeout's clock: what is left of it, and since when it runs (undefined while held).
  let leftMs = options.timeoutMs;
  let runningSince: number | undefined = Date.now();
  let closed = false;
  let timer = setTimeout(() => kill('timeout'), leftMs);
  const holdClock = () => {
    if (runningSince === undefined) return () => undefined;
    clearTimeout(timer);
    leftMs -= Date.now() - runningSince;
    runningSince = undefined;
    return () => {
      if (runningSince !== undefined || killedFor !== undefined || closed) return;
      runningSince = Date.now();
      timer = setTimeout(() => kill('timeout'), Math.max(0, leftMs));
    };
  };
  const onAbort = () => kill('aborted');
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const finished = new Promise<void>((resolve, reject) => {
    let spawnError: NodeJS.ErrnoException | undefined;
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    child.once('close', (code, signal) => {
      closed = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (partialLine && options.onStderrLine) options.onStderrLine(partialLine);
      if (spawnError?.code === 'ENOENT') {
        reject(
          new MediaError(
            'tool_missing',
            `${tool} is not available (looked in ${describeSource(resolved)}): run npm install, or set ${MEDIA_TOOL_ENV[tool]}.`,
          ),
        );
      } else if (killedFor === 'timeout') {
        reject(new MediaError('timeout', `${tool} took longer than ${options.timeoutMs} ms and was stopped.`, stderrTail));
      } else if (killedFor === 'aborted') {
        reject(new MediaError('aborted', `${tool} was cancelled.`, stderrTail));
      } else if (code === 0) {
        resolve();
      } else if (signal === 'SIGKILL' || signal === 'SIGTERM' || spawnError) {
        // Killed by stop() (the caller stopped early) or an unexpected spawn failure.
        reject(new MediaError('tool_failed', `${tool} stopped (${signal ?? spawnError?.message ?? 'unknown'}).`, stderrTail));
      } else {
        reject(classify?.(stderrTail) ?? new MediaError('tool_failed', `${tool} failed with exit code ${code}.`, stderrTail));
      }
    });
  });
  // A caller that only awaits its own stream must not see an unhandled rejection from here.
  finished.catch(() => undefined);

  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return { child, finished, stop, holdClock };
}

/** Runs a tool to completion and returns everything it wrote to stdout (for small outputs only). */
export async function runTool(
  tool: MediaTool,
  args: readonly string[],
  options: SpawnOptions & { maxOutputBytes?: number },
  classify?: (stderr: string) => MediaError | undefined,
): Promise<Buffer> {
  const running = startTool(tool, args, options, classify);
  const chunks: Buffer[] = [];
  let size = 0;
  const limit = options.maxOutputBytes ?? 64 * 1024 * 1024;
  running.child.stdout?.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      running.stop();
      return;
    }
    chunks.push(chunk);
  });
  await running.finished;
  if (size > limit) throw new MediaError('tool_failed', `${tool} wrote more than ${limit} bytes.`);
  return Buffer.concat(chunks);
}

/**
 * Runs ffmpeg with quiet logging and the given arguments; rejects with a MediaError on failure,
 * `classify`'s for a failure it recognises in stderr.
 */
export async function runFfmpeg(
  args: readonly string[],
  options: MediaRunOptions = {},
  classify?: (stderr: string) => MediaError | undefined,
): Promise<void> {
  await runTool(
    'ffmpeg',
    ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args],
    { timeoutMs: options.timeoutMs ?? 10 * 60_000, signal: options.signal },
    classify,
  );
}

export interface MediaToolsReport {
  ffmpeg: { version: string; source: string };
  ffprobe: { version: string; source: string };
}

/**
 * Which ffmpeg and ffprobe run and their versions, for the start-up log; a `tool_missing`
 * MediaError naming the tool when one cannot be run.
 */
export async function mediaToolsReport(options: { timeoutMs?: number } = {}): Promise<MediaToolsReport> {
  const describe = async (tool: MediaTool) => {
    const resolved = mediaTool(tool);
    try {
      return { version: await toolVersion(resolved, options.timeoutMs), source: describeSource(resolved) };
    } catch (error) {
      throw new MediaError('tool_missing', (error as Error).message);
    }
  };
  const [ffmpeg, ffprobe] = await Promise.all([describe('ffmpeg'), describe('ffprobe')]);
  return { ffmpeg, ffprobe };
}

/** The report as one line: `ffmpeg N-47683 (npm package @ffmpeg-installer/linux-x64), ffprobe 5.2.2 (…)`. */
export function formatMediaToolsReport(report: MediaToolsReport): string {
  return `ffmpeg ${report.ffmpeg.version} (${report.ffmpeg.source}), ffprobe ${report.ffprobe.version} (${report.ffprobe.source})`;
}

/** Which ffmpeg/ffprobe run (one line), or a `tool_missing` MediaError. */
export async function mediaToolsVersion(options: MediaRunOptions = {}): Promise<string> {
  return formatMediaToolsReport(await mediaToolsReport({ timeoutMs: options.timeoutMs }));
}

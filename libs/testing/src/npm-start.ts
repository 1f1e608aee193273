import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

/** What `npm start` runs once built: the embedded server (npm test builds it first). */
export const EMBEDDED_MAIN = join(resolve(__dirname, '../../..'), 'services/embedded/dist/main.js');

export interface NpmStart {
  child: ChildProcess;
  /** `Base URL: …` as printed. */
  baseUrl: string;
  /** `API key: …`, printed on a data folder's first start only. */
  apiKey: string | undefined;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Ctrl-C, as a person stops it; resolves with the exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();
// A suite that fails before its stop() must not leave a server behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * `npm start` as a person runs it: the built embedded server in a process of its own, on the data
 * folder `env.DATA_DIR`, with `env` over this process's environment. Resolves once it has printed
 * its base URL and data folder; rejects with its output if it exits first or says nothing within
 * `startMs`.
 */
export function startNpmStart(env: Record<string, string>, startMs = 60_000): Promise<NpmStart> {
  const child = spawn(process.execPath, [EMBEDDED_MAIN], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', VUS_BOOTSTRAP_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const stop = () =>
    new Promise<number | null>((resolveExit) => {
      if (child.exitCode !== null) return resolveExit(child.exitCode);
      child.once('exit', (code) => resolveExit(code));
      child.kill('SIGINT');
    });
  return new Promise((resolveStart, reject) => {
    const fail = (error: Error) => {
      clearInterval(poll);
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`no start-up within ${startMs} ms:\n${out}`)), startMs);
    const exited = (code: number | null) => fail(new Error(`exited ${code}:\n${out}`));
    child.once('exit', exited);
    const poll = setInterval(() => {
      const base = /^Base URL: (\S+)$/m.exec(out);
      if (!base || !/^Data: /m.test(out)) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.off('exit', exited);
      resolveStart({ child, baseUrl: base[1]!, apiKey: /^API key: (\S+)$/m.exec(out)?.[1], output: () => out, stop });
    }, 50);
  });
}

import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * runMain as a process sees it: a Ctrl-C that arrives while the service is still starting stops it
 * cleanly once started (exit 0), instead of killing it with the signal (exit code null), which is
 * what `npm start` did when a test stopped it right after its first lines, before its probes ended.
 */
const DIST = join(__dirname, '..', 'dist', 'index.js');

function runService(startMs: number): {
  exited: Promise<{ code: number | null; output: string }>;
  signal(name: NodeJS.Signals): void;
  started: Promise<void>;
} {
  const script = `
    const { runMain } = require(${JSON.stringify(DIST)});
    runMain(async () => {
      process.stdout.write('starting\\n');
      await new Promise((resolve) => setTimeout(resolve, ${startMs}));
      process.stdout.write('started\\n');
      return { stop: async () => void process.stdout.write('stopped\\n') };
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let announce: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (announce = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('starting')) announce();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    started,
    signal: (name) => child.kill(name),
    exited: new Promise((resolve) => child.once('exit', (code) => resolve({ code, output }))),
  };
}

describe('runMain', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('stops cleanly on %s sent while the service is still starting', async (name) => {
    const service = runService(1500);
    await service.started;
    service.signal(name);
    const { code, output } = await service.exited;
    expect(code).toBe(0);
    // stdout and stderr come through separate pipes: their order between them is not kept.
    expect(output.split('\n').sort()).toEqual(['', `${name} received, shutting down`, 'started', 'starting', 'stopped']);
  });

  it('stops cleanly on SIGINT once started', async () => {
    const service = runService(0);
    await service.started;
    await new Promise((resolve) => setTimeout(resolve, 300));
    service.signal('SIGINT');
    expect(await service.exited).toMatchObject({ code: 0, output: expect.stringContaining('stopped') });
  });
});

'use strict';
/**
 * What the benchmarks (and the tiny-model generator) share: a seeded generator, percentiles, and a
 * run's throwaway databases and started services, undone at the end.
 */

/** mulberry32: a small seeded generator, so that two runs draw the same corpus (or weights). */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The value at percentile `p` (0–100) of `values` (nearest rank). */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * A run's resources: throwaway databases of the local PostgreSQL (TEST_DATABASE_URL), named
 * `vus_bench_<name>…`, and whatever it starts (`onStop`). `stop` stops those last first, then drops
 * the databases (or, with `keep`, only closes them, for EXPLAIN ANALYZE afterwards).
 */
function benchRun() {
  const databases = [];
  const stops = [];
  const throwaway = async (name) => {
    // Required here: the tiny-model generator loads this file without the workspace built.
    const { createThrowawayDatabase } = require('@vus/db/testing');
    const database = await createThrowawayDatabase(`vus_bench_${name}`);
    databases.push(database);
    return database;
  };
  return {
    databases,
    throwaway,
    /** A throwaway database as a service's `database` option. */
    postgres: async (name) => ({ kind: 'postgres', url: (await throwaway(name)).url }),
    onStop: (stop) => void stops.push(stop),
    async stop({ keep = false } = {}) {
      for (const stop of stops.splice(0).reverse())
        await Promise.resolve()
          .then(stop)
          .catch((error) => console.error('stopping:', error));
      for (const database of databases.splice(0)) {
        if (keep) await database.db.close();
        else await database.drop().catch((error) => console.error('dropping:', error));
      }
    },
  };
}

/**
 * Starts the built embedded server (`npm start` without the build) in its own process on a free
 * port, with `key` as its first API key and `env` over its environment; memory benches read its
 * /proc status. `stop()` ends it and removes `dataDir`. `options.stdout`: 'pipe' to read its log
 * lines (child.stdout; set LOG_LEVEL in `env`); ignored by default. BENCH_SERVER_NODE_ARGS (space
 * separated) goes to its node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` for a CPU profile of each of
 * its threads, written when it stops.
 */
async function startEmbeddedServer(dataDir, key, env = {}, options = {}) {
  const { spawn } = require('node:child_process');
  const { existsSync, readFileSync } = require('node:fs');
  const { join } = require('node:path');
  const nodeArgs = [...npmStartNodeFlags(), ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, join(__dirname, '..', '..', 'services', 'embedded', 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      VUS_BOOTSTRAP_API_KEY: key,
      LOG_LEVEL: 'error',
      MODELS_DIR: join(dataDir, 'no-models'),
      ...env,
    },
    stdio: ['ignore', options.stdout ?? 'ignore', 'inherit'],
  });
  const stateFile = join(dataDir, 'embedded.json');
  for (let waited = 0; !existsSync(stateFile); waited += 100) {
    if (child.exitCode !== null || waited > 120_000) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  // Stops it (a clean shutdown) and removes its data folder.
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    require('node:fs').rmSync(dataDir, { recursive: true, force: true });
  };
  return { child, url: JSON.parse(readFileSync(stateFile, 'utf8')).base_url, stop };
}

/**
 * The node flags `npm start` gives the embedded server (package.json's start script, e.g. its young
 * generation's size): benches run the server, or the services in their own process, with them.
 */
function npmStartNodeFlags() {
  const start = require('../../package.json').scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/** The node flags the chart gives a component (`nodeArgs` of its block in charts/vus/values.yaml, e.g. searchService). */
function chartNodeArgs(valuesKey) {
  const { readFileSync } = require('node:fs');
  const { join } = require('node:path');
  const values = require('yaml').parse(readFileSync(join(__dirname, '..', '..', 'charts', 'vus', 'values.yaml'), 'utf8'));
  return values[valuesKey]?.nodeArgs ?? [];
}

/**
 * Runs this script again with `flags` added to node's own when it lacks one of them (they size the
 * heap, which only a new process can do), and exits with its code; returns when it has them all.
 */
function withNodeFlags(flags) {
  if (flags.every((flag) => process.execArgv.includes(flag))) return;
  const { spawnSync } = require('node:child_process');
  const run = spawnSync(process.execPath, [...process.execArgv, ...flags, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

/** A process's resident memory now (VmRSS) and at its peak (VmHWM), in KiB, from /proc. */
/**
 * A model registry with the bundled models only (nothing downloaded, no CLIP or Whisper), as the
 * worker has them on a fresh machine: what the indexing benches profile.
 */
function bundledModelRegistry() {
  const { tmpdir } = require('node:os');
  const { join } = require('node:path');
  const { createModelRegistry, POCKETSPHINX_DEFAULTS } = require('@vus/models');
  return createModelRegistry({
    modelsDir: join(tmpdir(), 'vus-bench-no-models'),
    allowDownload: false,
    clipModel: 'absent/clip',
    whisperModel: 'absent/whisper',
    pocketsphinx: POCKETSPHINX_DEFAULTS,
  });
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * A /proc `stat` file (`/proc/<pid>/stat` or a thread's `/proc/<pid>/task/<tid>/stat`): its name
 * (comm, which may hold spaces and parentheses) and the fields after it, so that utime is fields[11],
 * stime 12, cutime 13 and cstime 14 (fields 14–17 of proc(5), 1-based).
 */
function procStat(path) {
  const stat = require('node:fs').readFileSync(path, 'utf8');
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(') ') + 2).split(' ') };
}

/** CPU seconds of a process: its threads (utime + stime) and its finished children (cutime + cstime). */
function cpuSecondsOf(pid = 'self') {
  const { fields } = procStat(`/proc/${pid}/stat`);
  return {
    own: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    children: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
  };
}

function residentKib(pid) {
  const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
  return { now: field('VmRSS'), peak: field('VmHWM') };
}

const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;

module.exports = {
  seededRandom,
  percentile,
  benchRun,
  startEmbeddedServer,
  npmStartNodeFlags,
  chartNodeArgs,
  withNodeFlags,
  bundledModelRegistry,
  TICKS_PER_SECOND,
  procStat,
  cpuSecondsOf,
  residentKib,
  mib,
};

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

module.exports = { seededRandom, percentile, benchRun };

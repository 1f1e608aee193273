/**
 * PostgreSQL's autovacuum, for PGlite, which has none: PGlite is one standalone backend (no
 * launcher, no workers), so in embedded mode no table was ever analysed (the planner guessed every
 * row count: reltuples -1) or vacuumed (the dead rows of replaced segments, finished jobs and purged
 * result sets stayed, and every scan read them). PGlite keeps the counters autovacuum reads all the
 * same (pg_stat_user_tables), so the same rules, with PostgreSQL's default settings, say here which
 * tables are due; the service kit runs them now and then (libs/service tableMaintenanceJobs).
 * PGlite does not keep those counters across a restart (they read 0 after it), so what pg_class
 * keeps decides too: a table is analysed when it has rows but no statistics, or has grown by the
 * analysis share of its pages since, and vacuumed when a fifth of its pages (at least 8) are not
 * all visible (its visibility map: rows never vacuumed are checked row by row, and their first
 * reads write hint bits). Data loaded before a restart is not left as it was.
 */
import type { QueryConfig } from 'pg';
import type { Database } from './database';

/** A table's counters since its last vacuum and analyse (pg_stat_user_tables). */
export interface TableActivity {
  /** The table as a regclass prints it (quoted where needed). */
  readonly table: string;
  /** The partitioned table it is a partition of (the top one), or itself. */
  readonly root: string;
  readonly liveRows: number;
  readonly deadRows: number;
  readonly modifiedSinceAnalyze: number;
  readonly insertedSinceVacuum: number;
  /** Its size in pages now. */
  readonly pages: number;
  /** Its pages the visibility map had all visible when last vacuumed or analysed (pg_class.relallvisible). */
  readonly allVisiblePages: number;
  /**
   * Its size in pages when last analysed or vacuumed (pg_class.relpages); null when it was never
   * analysed (no statistics: an index build sets relpages, not them).
   */
  readonly analysedPages: number | null;
}

/** When a table is due: a base count plus a share of its live rows, as autovacuum's settings say. */
export interface MaintenanceRules {
  readonly vacuumBase: number;
  readonly vacuumScale: number;
  readonly insertBase: number;
  readonly insertScale: number;
  readonly analyzeBase: number;
  readonly analyzeScale: number;
  /** Pages not all visible, beyond vacuumScale of the table, that call for a vacuum (the counters' insert rule, kept in pg_class). */
  readonly unvacuumedPagesBase: number;
}

/** PostgreSQL's defaults: autovacuum_vacuum_threshold/_scale_factor, _vacuum_insert_, _analyze_. */
export const AUTOVACUUM_RULES: MaintenanceRules = {
  vacuumBase: 50,
  vacuumScale: 0.2,
  insertBase: 1000,
  insertScale: 0.2,
  analyzeBase: 50,
  analyzeScale: 0.1,
  unvacuumedPagesBase: 8,
};

/**
 * The statements that bring the tables up to date, vacuums first. A partition due for analysis is
 * analysed through its partitioned table, once (which analyses every partition, and gives the
 * partitioned table the statistics autovacuum never collects for it even on PostgreSQL). Pure.
 */
export function maintenanceDue(tables: readonly TableActivity[], rules: MaintenanceRules = AUTOVACUUM_RULES): string[] {
  const vacuums: string[] = [];
  const analyses = new Set<string>();
  for (const t of tables) {
    const unvacuumedPages = t.pages - t.allVisiblePages;
    const vacuum =
      t.deadRows > rules.vacuumBase + rules.vacuumScale * t.liveRows ||
      t.insertedSinceVacuum > rules.insertBase + rules.insertScale * t.liveRows ||
      (unvacuumedPages >= rules.unvacuumedPagesBase && unvacuumedPages > rules.vacuumScale * t.pages);
    const analyse =
      t.modifiedSinceAnalyze > rules.analyzeBase + rules.analyzeScale * t.liveRows ||
      (t.analysedPages === null ? t.pages > 0 : t.pages > t.analysedPages * (1 + rules.analyzeScale));
    const partition = t.root !== t.table;
    if (vacuum && analyse && !partition) vacuums.push(`VACUUM (ANALYZE) ${t.table}`);
    else {
      if (vacuum) vacuums.push(`VACUUM ${t.table}`);
      if (analyse) analyses.add(`ANALYZE ${t.root}`);
    }
  }
  return [...vacuums, ...analyses];
}

/** Maintenance may take this long (a vacuum of a large table); the engine serves nothing else meanwhile. */
const MAINTENANCE_TIMEOUT_MS = 10 * 60_000;

/**
 * Reads the tables' counters and runs what maintenanceDue says, one statement at a time; answers
 * the statements run with their durations.
 */
export async function maintainTables(
  db: Pick<Database, 'query'>,
  rules: MaintenanceRules = AUTOVACUUM_RULES,
): Promise<{ statement: string; ms: number }[]> {
  // A backend flushes its counters when idle, at most once a second: this one's now (PGlite has no other).
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<TableActivity & Record<string, unknown>>(
    `SELECT s.relid::regclass::text AS "table", COALESCE(pg_partition_root(s.relid), s.relid)::regclass::text AS root,
            s.n_live_tup::float8 AS "liveRows", s.n_dead_tup::float8 AS "deadRows",
            s.n_mod_since_analyze::float8 AS "modifiedSinceAnalyze", s.n_ins_since_vacuum::float8 AS "insertedSinceVacuum",
            (pg_relation_size(c.oid) / current_setting('block_size')::int)::float8 AS pages, c.relallvisible::float8 AS "allVisiblePages",
            CASE WHEN EXISTS (SELECT 1 FROM pg_stats p WHERE p.schemaname = s.schemaname AND p.tablename = s.relname)
                 THEN c.relpages::float8 END AS "analysedPages"
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE c.relkind = 'r'
     ORDER BY 1`,
  );
  const ran: { statement: string; ms: number }[] = [];
  for (const statement of maintenanceDue(rows, rules)) {
    const started = performance.now();
    // pg reads a per-statement query_timeout (the client-side timer PGlite's statements have), though its type does not list it.
    const longer: QueryConfig = Object.assign({ text: statement }, { query_timeout: MAINTENANCE_TIMEOUT_MS });
    await db.query(longer);
    ran.push({ statement, ms: Math.round(performance.now() - started) });
  }
  return ran;
}

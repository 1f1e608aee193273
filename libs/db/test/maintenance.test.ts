/** Which tables autovacuum's rules (PostgreSQL's defaults) say are due, for PGlite, which runs none. */
import { maintenanceDue, type TableActivity } from '../src/maintenance';

const table = (name: string, counts: Partial<TableActivity> = {}): TableActivity => ({
  table: name,
  root: name,
  liveRows: 0,
  deadRows: 0,
  modifiedSinceAnalyze: 0,
  insertedSinceVacuum: 0,
  pages: 10,
  allVisiblePages: 10,
  analysedPages: 10,
  ...counts,
});

describe('maintenanceDue', () => {
  it.each<[string, TableActivity[], string[]]>([
    ['nothing changed', [table('jobs', { liveRows: 10_000 })], []],
    // analyse: more than 50 + 10 % of the live rows modified
    ['a new table filled', [table('jobs', { liveRows: 400, modifiedSinceAnalyze: 400, insertedSinceVacuum: 400 })], ['ANALYZE jobs']],
    ['a few changes to a large table', [table('jobs', { liveRows: 10_000, modifiedSinceAnalyze: 1_050 })], []],
    ['a tenth of a large table changed', [table('jobs', { liveRows: 10_000, modifiedSinceAnalyze: 1_051 })], ['ANALYZE jobs']],
    // vacuum: more than 50 + 20 % dead, or more than 1,000 + 20 % inserted since the last vacuum
    ['dead rows', [table('jobs', { liveRows: 1_000, deadRows: 251 })], ['VACUUM jobs']],
    ['not enough dead rows', [table('jobs', { liveRows: 1_000, deadRows: 250 })], []],
    ['many inserts', [table('jobs', { liveRows: 5_000, insertedSinceVacuum: 2_001 })], ['VACUUM jobs']],
    ['both', [table('jobs', { liveRows: 1_000, deadRows: 900, modifiedSinceAnalyze: 900 })], ['VACUUM (ANALYZE) jobs']],
    [
      'partitions: each vacuumed, analysed once through their partitioned table, after the vacuums',
      [
        table('segments_conversation', { root: 'segments', liveRows: 100, modifiedSinceAnalyze: 100, deadRows: 200 }),
        table('segments_visual', { root: 'segments', liveRows: 100, modifiedSinceAnalyze: 100 }),
        table('segments_text', { root: 'segments', liveRows: 100_000 }),
        table('"Odd name"', { liveRows: 0, modifiedSinceAnalyze: 51 }),
      ],
      ['VACUUM segments_conversation', 'ANALYZE segments', 'ANALYZE "Odd name"'],
    ],
    // PGlite's counters read 0 after a restart: what pg_class keeps decides then
    ['rows never analysed', [table('jobs', { pages: 1, analysedPages: null })], ['ANALYZE jobs']],
    ['an empty table never analysed', [table('jobs', { pages: 0, analysedPages: null })], []],
    [
      'grown by more than a tenth since analysed',
      [table('jobs', { pages: 1_101, allVisiblePages: 1_101, analysedPages: 1_000 })],
      ['ANALYZE jobs'],
    ],
    ['grown by a tenth', [table('jobs', { pages: 1_100, allVisiblePages: 1_100, analysedPages: 1_000 })], []],
    ['shrunk', [table('jobs', { pages: 10, allVisiblePages: 10, analysedPages: 1_000 })], []],
    ['rows never vacuumed', [table('jobs', { pages: 1_000, allVisiblePages: 0, analysedPages: 1_000 })], ['VACUUM jobs']],
    ['a fifth of the pages not all visible', [table('jobs', { pages: 1_000, allVisiblePages: 800, analysedPages: 1_000 })], []],
    ['more than a fifth', [table('jobs', { pages: 1_000, allVisiblePages: 799, analysedPages: 1_000 })], ['VACUUM jobs']],
    ['a small table never vacuumed', [table('jobs', { pages: 7, allVisiblePages: 0 })], []],
    [
      'loaded before a restart',
      [table('segments_visual', { root: 'segments', pages: 2_646, allVisiblePages: 0, analysedPages: null })],
      ['VACUUM segments_visual', 'ANALYZE segments'],
    ],
  ])('%s', (_case, tables, statements) => {
    expect(maintenanceDue(tables)).toEqual(statements);
  });
});

import { Where } from '@vus/db';

describe('Where', () => {
  const at = new Date('2026-01-02T03:04:05Z');

  it.each([
    ['no condition', () => new Where(), 'TRUE', []],
    ['one condition', () => new Where().add((p) => `org_id = ${p}`, 'org1'), 'org_id = $1', ['org1']],
    [
      'conditions in order, each with the next placeholder',
      () => new Where().add((p) => `org_id = ${p}`, 'org1').add((p) => `id = ANY(${p}::text[])`, ['a', 'b']),
      'org_id = $1 AND id = ANY($2::text[])',
      ['org1', ['a', 'b']],
    ],
    [
      'every bound, in a fixed order',
      () => new Where().bounds('t.duration', { lt: 9, gt: 1, lte: 8, gte: 2 }),
      't.duration >= $1 AND t.duration <= $2 AND t.duration > $3 AND t.duration < $4',
      [2, 8, 1, 9],
    ],
    ['a zero bound is a bound', () => new Where().bounds('width', { gte: 0 }), 'width >= $1', [0]],
    ['absent bounds add nothing', () => new Where().bounds('created_at', undefined).bounds('updated_at', { gte: undefined }), 'TRUE', []],
    ['a time bound', () => new Where().bounds('created_at', { lt: at }), 'created_at < $1', [at]],
    [
      'a placeholder used inside a later condition',
      () => {
        const where = new Where();
        const key = where.param('colour');
        return where.add((p) => `user_metadata -> ${key}::text = ANY(${p}::jsonb[])`, ['"red"']);
      },
      'user_metadata -> $1::text = ANY($2::jsonb[])',
      ['colour', ['"red"']],
    ],
  ])('%s', (_name, build, sql, params) => {
    const where = build();
    expect([where.sql, where.params]).toEqual([sql, params]);
  });

  it('numbers what comes after the clause (LIMIT, OFFSET) on from its values', () => {
    const where = new Where().add((p) => `org_id = ${p}`, 'org1');
    expect([`LIMIT ${where.param(10)} OFFSET ${where.param(20)}`, where.params]).toEqual(['LIMIT $2 OFFSET $3', ['org1', 10, 20]]);
  });
});

/*
 * routes/embed.schema.ts parseListEmbedTasks: the one reading of GET /embed/tasks' and
 * /embed-v2/tasks' query (paging, the creation window, statuses).
 */
import { parseListEmbedTasks } from '../src/routes/embed.schema';
import { readQuery } from '../src/http/query';

const parse = (search: string) => parseListEmbedTasks(readQuery(`/embed/tasks${search}`));
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

describe('parseListEmbedTasks', () => {
  it.each([
    ['nothing', '', { created_at: null, statuses: [] }],
    ['statuses, repeated', '?status=ready&status=processing', { created_at: null, statuses: ['ready', 'processing'] }],
    [
      'a window',
      '?started_at=2024-01-01T00:00:00Z&ended_at=2024-02-01T00:00:00Z',
      {
        created_at: {
          gte: expect.objectContaining({ seconds: seconds('2024-01-01T00:00:00Z') }),
          lte: expect.objectContaining({ seconds: seconds('2024-02-01T00:00:00Z') }),
        },
        statuses: [],
      },
    ],
    ['a window open at its end', '?started_at=2024-01-01', { created_at: { gte: expect.anything() }, statuses: [] }],
  ])('%s', (_name, search, expected) => {
    expect(parse(search)).toEqual(expect.objectContaining(expected));
  });

  it('reads the page as every list does', () => {
    expect(parse('?page=2&page_limit=5').page).toEqual({ page: 2, page_limit: 5 });
  });

  it.each(['started_at', 'ended_at'])('refuses a %s that is not a date', (name) => {
    expect(() => parse(`?${name}=yesterday`)).toThrow(
      expect.objectContaining({
        code: 'parameter_invalid',
        message: `The ${name} parameter is invalid. It must be a date (ISO 8601).`,
        details: { param: name },
      }),
    );
  });
});

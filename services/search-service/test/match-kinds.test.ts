import { lexicalPlan, type TermGroup } from '../src/lexical';
import { matchKindsSql } from '../src/store';

/** The tsquery texts matchKindsSql asked for, in order, each written as `q<n>`. */
function built(groups: TermGroup[]): { sql: string; queries: string[] } {
  const queries: string[] = [];
  const sql = matchKindsSql(lexicalPlan(groups)!, (text) => `q${queries.push(text) - 1}`);
  return { sql, queries };
}

describe('matchKindsSql (issue 31)', () => {
  it.each([
    ['a one-word group is tested as it is, without a gate', [{ term: 'car', alternatives: [{ text: 'car', weight: 1 }] }], ['car'], 0],
    [
      'a group of several alternatives is first tested whole (ORed), then per alternative',
      [
        {
          term: 'car',
          alternatives: [
            { text: 'car', weight: 1, kind: 'exact' },
            { text: 'automobile', weight: 0.85, kind: 'synonym' },
          ],
        },
      ],
      ['car', 'automobile', '(car) | (automobile)'],
      1,
    ],
    [
      "a hypernym's gate reads the segment's own words, the others' the whole document",
      [
        {
          term: 'car',
          alternatives: [
            { text: 'car', weight: 1, kind: 'exact' },
            { text: 'motor vehicle', weight: 0.6, kind: 'hypernym' },
          ],
        },
        { term: 'red', alternatives: [{ text: 'red', weight: 1 }] },
      ],
      ['car', 'motor <-> vehicle', 'red', '(car)', '(motor <-> vehicle)'],
      1,
    ],
  ] as const)('%s', (_case, groups, expectedQueries, gates) => {
    const { sql, queries } = built(groups as unknown as TermGroup[]);
    // One tsquery per alternative (broader and tentative matches filter the document instead), plus the gates.
    expect(queries).toEqual(expectedQueries);
    expect(sql.match(/ELSE '-{2,}' END/g)?.length ?? 0).toBe(gates);
    expect(sql).not.toMatch(/:B|:C/);
  });

  it("keeps one character per alternative in the plan's order: a missed group answers a dash per alternative", () => {
    const groups: TermGroup[] = [
      { term: 'dog', alternatives: [{ text: 'dog', weight: 1 }] },
      {
        term: 'car',
        alternatives: [
          { text: 'car', weight: 1 },
          { text: 'auto', weight: 0.85 },
          { text: 'automobile', weight: 0.85 },
        ],
      },
      { term: 'red', alternatives: [{ text: 'red', weight: 1 }] },
    ];
    const { sql, queries } = built(groups);
    expect(queries).toEqual(['dog', 'car', 'auto', 'automobile', 'red', '(car) | (auto) | (automobile)']);
    const order = [
      's.doc @@ q0 THEN',
      's.doc @@ q5 THEN',
      's.doc @@ q1 THEN',
      's.doc @@ q3 THEN',
      "ELSE '---' END",
      's.doc @@ q4 THEN',
    ].map((part) => sql.indexOf(part));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});

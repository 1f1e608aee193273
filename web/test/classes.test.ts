import { parseClasses } from '../src/lib/classes';

describe('parseClasses', () => {
  it.each([
    ['outdoors: a garden, a park', { classes: [{ name: 'outdoors', prompts: ['a garden', 'a park'] }] }],
    ['planet', { classes: [{ name: 'planet', prompts: ['planet'] }] }],
    [
      '\n  fruit : orange ,, \n\nplanet\n',
      {
        classes: [
          { name: 'fruit', prompts: ['orange'] },
          { name: 'planet', prompts: ['planet'] },
        ],
      },
    ],
    ['', { problem: expect.stringMatching(/^Type at least one class/) }],
    ['  \n ', { problem: expect.stringMatching(/^Type at least one class/) }],
    ['ok\n: a garden', { problem: 'Line 2 has prompts but no class name before its colon.' }],
    ['outdoors:', { problem: 'Line 1 names the class "outdoors" but gives no prompt after its colon.' }],
    ['outdoors: , ,', { problem: 'Line 1 names the class "outdoors" but gives no prompt after its colon.' }],
  ])('%j', (text, expected) => {
    expect(parseClasses(text)).toEqual(expected);
  });
});

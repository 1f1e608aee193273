import { familyOfEngine, isEngineFamily } from '@vus/domain';

describe('engine families', () => {
  it.each([
    ['marengo2.7', 'marengo'],
    ['marengo3.0', 'marengo'],
    ['pegasus1.2', 'pegasus'],
    ['whisper', undefined],
    ['', undefined],
  ])('%s is of family %s', (name, family) => {
    expect(familyOfEngine(name)).toBe(family);
  });

  it.each([
    ['marengo', true],
    ['pegasus', true],
    ['Marengo', false],
    ['', false],
  ])('%s is a family name: %s', (value, expected) => {
    expect(isEngineFamily(value)).toBe(expected);
  });
});

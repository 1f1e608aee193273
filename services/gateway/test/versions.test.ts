import { canonicalToV13Options, familyOfModel, v13FilterToCanonical, v13ToCanonicalOptions } from '../src/versions';

describe('v13ToCanonicalOptions', () => {
  it.each([
    ['marengo2.7', ['visual'], ['visual', 'text_in_video', 'logo']],
    ['marengo2.7', ['audio'], ['conversation']],
    ['marengo2.7', ['visual', 'audio'], ['visual', 'text_in_video', 'logo', 'conversation']],
    // Pegasus has no on-screen text or logo options.
    ['pegasus1.2', ['visual', 'audio'], ['visual', 'conversation']],
    // Legacy names pass through; duplicates collapse.
    ['marengo2.7', ['conversation', 'audio'], ['conversation']],
    ['marengo2.7', ['logo'], ['logo']],
  ] as const)('%s %p → %p', (model, options, expected) => {
    expect(v13ToCanonicalOptions(model, options)).toEqual(expected);
  });
});

describe('canonicalToV13Options', () => {
  it.each([
    [['visual', 'conversation'], ['visual', 'audio']],
    [['text_in_video'], ['visual']],
    [['logo', 'text_in_video', 'visual'], ['visual']],
    [['conversation'], ['audio']],
    [[], []],
  ])('%p → %p', (options, expected) => {
    expect(canonicalToV13Options(options)).toEqual(expected);
  });

  it('round-trips what v1.3 creates', () => {
    for (const options of [['visual'], ['audio'], ['visual', 'audio']] as const) {
      expect(canonicalToV13Options(v13ToCanonicalOptions('marengo3.0', options))).toEqual(options);
    }
  });
});

describe('v13FilterToCanonical', () => {
  it('maps audio to conversation', () => {
    expect(v13FilterToCanonical(['audio', 'visual'])).toEqual(['conversation', 'visual']);
  });
});

describe('familyOfModel', () => {
  it.each([
    ['marengo2.6', 'marengo'],
    ['pegasus1', 'pegasus'],
    ['whisper', undefined],
  ])('%s → %p', (name, family) => {
    expect(familyOfModel(name)).toBe(family);
  });
});

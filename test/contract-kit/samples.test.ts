import { styleOf, USERNAME_STYLES, usernameFor } from '../../contract-tests/model/samples';

/**
 * The usernames the kit sends (model/samples.ts). The search for a style sends the longest name
 * of the style, so that a server with a shorter limit refuses the style then, and not some of the
 * run's names later (their tail, the process id and a counter, grows with the run).
 */
describe('the usernames the kit sends', () => {
  it('searches each style with a name as long as the style’s longest, and never sends a longer one', () => {
    for (const style of USERNAME_STYLES) {
      expect(usernameFor('sample', 9001, style, true)).toHaveLength(style.max);
      for (const n of [1, 45, 99_999])
        expect(usernameFor('keepsother', n, style).length).toBeLessThanOrEqual(style.max);
    }
  });

  it('fits a short username given with --sample: as long as it, of letters and digits from a letter, each unique', () => {
    for (const sample of ['kit_user', 'kitbob']) {
      const style = styleOf(sample);
      expect(style.max).toBe(sample.length);
      const names = Array.from({ length: 500 }, (_, n) => usernameFor('a long label', n, style));
      for (const name of names) expect(name).toMatch(new RegExp(`^[a-z][a-z0-9]{1,${sample.length - 1}}$`));
      expect(new Set(names).size).toBe(names.length);
      expect(usernameFor('sample', 9001, style, true)).toHaveLength(sample.length);
    }
  });
});

describe('short usernames drawn at random', () => {
  afterEach(() => jest.restoreAllMocks());

  it('never gives the same one twice, even when the draw repeats itself', () => {
    const style = styleOf('kitbob');
    // The first two names draw the same four characters; the third draws others.
    const draws = [...Array(8).fill(0.5), ...Array(4).fill(0.25)];
    jest.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? 0.75);
    const names = [usernameFor('a', 1, style), usernameFor('b', 2, style)];
    expect(names[0]).not.toBe(names[1]);
    expect(names[1]!.slice(2)).toBe('9999');
  });
});

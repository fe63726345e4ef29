import { USERNAME_STYLES, usernameFor } from '../../contract-tests/model/samples';

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
});

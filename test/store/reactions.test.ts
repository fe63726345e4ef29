import { ApiError } from '../../src/errors';
import { addReactions } from '../../src/store/reactions';
import type { Reaction } from '../../src/types';
import { LIMITS } from '../../src/input/limits';

const users = (count: number, prefix = 'user') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/** The refusal `run` throws, for its code and param to be checked. */
function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('addReactions (convention C15)', () => {
  it('keeps the names it has in their order and puts new names last, in the order given', () => {
    const current: Reaction[] = [{ heart: ['ann'] }, { thumbs_up: ['bob'] }];
    expect(
      addReactions(current, [
        { name: 'smile', usernames: ['cy'] },
        { name: 'heart', usernames: ['dee'] },
        { name: 'tada', usernames: ['ann'] },
      ]),
    ).toEqual([{ heart: ['ann', 'dee'] }, { thumbs_up: ['bob'] }, { smile: ['cy'] }, { tada: ['ann'] }]);
  });

  it('lists each username at most once per name, adding new ones after the ones it has', () => {
    const current: Reaction[] = [{ heart: ['ann', 'bob'] }];
    expect(
      addReactions(current, [
        { name: 'heart', usernames: ['bob', 'cy', 'cy'] },
        { name: 'heart', usernames: ['ann', 'dee'] },
        { name: 'smile', usernames: ['ann', 'ann'] },
      ]),
    ).toEqual([{ heart: ['ann', 'bob', 'cy', 'dee'] }, { smile: ['ann'] }]);
  });

  it('never removes a name or a username', () => {
    const current: Reaction[] = [{ heart: ['ann', 'bob'] }, { smile: ['cy'] }];
    expect(addReactions(current, [])).toEqual(current);
    expect(addReactions(current, [{ name: 'heart', usernames: ['bob'] }])).toEqual(current);
  });

  it('changes neither its input nor the arrays it was given', () => {
    const current: Reaction[] = [Object.freeze({ heart: Object.freeze(['ann']) as string[] })];
    Object.freeze(current);
    const added = Object.freeze([
      Object.freeze({ name: 'heart', usernames: Object.freeze(['bob']) as string[] }),
    ]);
    const result = addReactions(current, added);
    expect(result).toEqual([{ heart: ['ann', 'bob'] }]);
    expect(current).toEqual([{ heart: ['ann'] }]);
    expect(added).toEqual([{ name: 'heart', usernames: ['bob'] }]);
    expect(result[0]!['heart']).not.toBe(current[0]!['heart']);
  });

  it('stores a name such as "__proto__" as an own key, not as the prototype', () => {
    const [reaction] = addReactions([], [{ name: '__proto__', usernames: ['ann'] }]);
    expect(Object.keys(reaction!)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(reaction)).toBe(Object.prototype);
  });

  it(`takes up to ${LIMITS.usernamesPerReaction} usernames a name and refuses more, naming reactions[<name>]`, () => {
    const full = addReactions(
      [{ heart: users(LIMITS.usernamesPerReaction - 1) }],
      [{ name: 'heart', usernames: ['last', 'user0'] }],
    );
    expect(full[0]!['heart']).toHaveLength(LIMITS.usernamesPerReaction);
    // A username it already has does not count again.
    expect(addReactions(full, [{ name: 'heart', usernames: ['last'] }])).toEqual(full);

    const error = refusal(() => addReactions(full, [{ name: 'heart', usernames: ['one_more'] }]));
    expect(error.code).toBe('parameter_invalid');
    expect(error.param).toBe('reactions[heart]');
    expect(error.message).toContain(`at most ${LIMITS.usernamesPerReaction} usernames`);
    const fresh = refusal(() =>
      addReactions([], [{ name: 'smile', usernames: users(LIMITS.usernamesPerReaction + 1) }]),
    );
    expect(fresh.param).toBe('reactions[smile]');
  });

  it(`takes up to ${LIMITS.reactionNamesPerMessage} names a message and refuses more, naming reactions`, () => {
    const names = users(LIMITS.reactionNamesPerMessage, 'name');
    const full = addReactions(
      [],
      names.map((name) => ({ name, usernames: ['ann'] })),
    );
    expect(full).toHaveLength(LIMITS.reactionNamesPerMessage);
    // More usernames on the names it has are still taken.
    expect(addReactions(full, [{ name: 'name0', usernames: ['bob'] }])[0]).toEqual({ name0: ['ann', 'bob'] });

    const error = refusal(() => addReactions(full, [{ name: 'one_more', usernames: ['ann'] }]));
    expect(error.code).toBe('parameter_invalid');
    expect(error.param).toBe('reactions');
    expect(error.message).toContain(`at most ${LIMITS.reactionNamesPerMessage} reaction names`);
  });
});

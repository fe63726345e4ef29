import { errors } from '../errors';
import type { Reaction } from '../types';
import * as fields from '../input/operations';
import { LIMITS } from '../input/limits';

/** Convention C15: new names go last, each username at most once per name. Never removes. */
export function addReactions(
  current: readonly Reaction[],
  added: readonly fields.ReactionInput[],
): Reaction[] {
  const byName = new Map<string, string[]>();
  for (const reaction of current) {
    for (const [name, usernames] of Object.entries(reaction)) byName.set(name, [...usernames]);
  }
  for (const { name, usernames } of added) {
    const list = byName.get(name) ?? [];
    for (const username of usernames) if (!list.includes(username)) list.push(username);
    if (list.length > LIMITS.usernamesPerReaction) {
      throw errors.invalid(
        `reactions[${name}]`,
        `a reaction holds at most ${LIMITS.usernamesPerReaction} usernames.`,
      );
    }
    byName.set(name, list);
  }
  if (byName.size > LIMITS.reactionNamesPerMessage) {
    throw errors.invalid(
      'reactions',
      `a message holds at most ${LIMITS.reactionNamesPerMessage} reaction names.`,
    );
  }
  // A computed key defines an own property even for a name like "__proto__".
  return [...byName].map(([name, usernames]) => ({ [name]: usernames }));
}

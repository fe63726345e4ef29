import type { Complete, Contact } from '../../src/types';

/**
 * The store's copies of its records are written out field by field (records of one shape, for
 * speed) from the field tables (scripts/generate-copies.ts), and each says `satisfies Complete<…>`,
 * so that a copy behind its table does not compile. Here the check is shown
 * to fail: the typecheck (`npm test`'s part typecheck) fails if a copy that leaves a field out,
 * even an optional one, compiles, because each `@ts-expect-error` below would then be unused.
 */
const complete = <T>(value: Complete<T>): Complete<T> => value;

/** A contact with a field it might gain one day. */
type MutedContact = Contact & { muted?: boolean };

const fields = {
  id: 'c1',
  username: 'ada',
  phone_number: '+14155550123',
  avatar_url: 'https://example.com/ada.png',
  display_name: 'Ada',
  conversation_id: 'v1',
  last_active_at: null,
  created_at: 1_700_000_000,
};

it('a copy with every field compiles; one without a field, or without an optional one, does not', () => {
  const whole = complete<Contact>({ ...fields });
  const { display_name: _left, ...withoutName } = fields;
  // @ts-expect-error display_name is left out
  const short = complete<Contact>({ ...withoutName });
  // @ts-expect-error the optional muted is left out
  const unmuted = complete<MutedContact>({ ...fields });
  const muted = complete<MutedContact>({ ...fields, muted: undefined });
  expect([whole, short, unmuted, muted].map((c) => Object.keys(c).length)).toEqual([8, 7, 8, 9]);
});

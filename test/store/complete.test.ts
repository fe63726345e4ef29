import type { Complete } from '../../src/types';

/**
 * The store's copies of its records are written out field by field (records of one shape, for
 * speed) from the field tables (scripts/generate-copies.ts), and each says `satisfies Complete<…>`,
 * so that a copy behind its table does not compile. Here the check is shown to fail: the typecheck
 * (`npm test`'s part typecheck) fails if a copy that leaves a field out, even an optional one,
 * compiles, because each `@ts-expect-error` below would then be unused.
 */
const complete = <T>(value: Complete<T>): Complete<T> => value;

interface Note {
  id: string;
  title: string;
  body: string | null;
  created_at: number;
}

/** A note with a field it might gain one day. */
type PinnedNote = Note & { pinned?: boolean };

const fields: Note = { id: 'n1', title: 'Shopping', body: null, created_at: 1_700_000_000 };

it('a copy with every field compiles; one without a field, or without an optional one, does not', () => {
  const whole = complete<Note>({ ...fields });
  const { body: _left, ...withoutBody } = fields;
  // @ts-expect-error body is left out
  const short = complete<Note>({ ...withoutBody });
  // @ts-expect-error the optional pinned is left out
  const unpinned = complete<PinnedNote>({ ...fields });
  const pinned = complete<PinnedNote>({ ...fields, pinned: undefined });
  expect([whole, short, unpinned, pinned].map((c) => Object.keys(c).length)).toEqual([4, 3, 4, 5]);
});

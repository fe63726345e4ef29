import { typeErrors } from '../type-errors';

/**
 * The store's copies of its records are written out field by field (records of one shape, for
 * speed) from the field tables (scripts/generate-copies.ts), and each says `satisfies Complete<…>`,
 * so that a copy behind its table does not compile. Here each kind of copy is compiled against
 * `Complete` (src/types.ts), and the errors are what is asserted: a `Complete` that let a field be
 * left out would fail this test.
 */
const NOTE = `
  import type { Complete } from '../src/types';
  interface Note { id: string; title: string; body: string | null; created_at: number }
  /** A note with a field it might gain one day. */
  type PinnedNote = Note & { pinned?: boolean };
  const fields: Note = { id: 'n1', title: 'Shopping', body: null, created_at: 1_700_000_000 };
`;

it('a copy with every field compiles, an optional one set to undefined too', () => {
  expect(
    typeErrors(`${NOTE}
      export const whole = { ...fields } satisfies Complete<Note>;
      export const pinned = { ...fields, pinned: undefined } satisfies Complete<PinnedNote>;
    `),
  ).toEqual([]);
});

it('a copy without a field does not compile, nor one without an optional field', () => {
  const errors = typeErrors(`${NOTE}
    const { body: _left, ...withoutBody } = fields;
    export const short = { ...withoutBody } satisfies Complete<Note>;
    export const unpinned = { ...fields } satisfies Complete<PinnedNote>;
  `);
  expect(errors).toEqual([
    expect.stringMatching(/Property 'body' is missing/),
    expect.stringMatching(/Property 'pinned' is missing/),
  ]);
});

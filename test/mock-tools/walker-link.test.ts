import { typeErrors } from '../type-errors';

/**
 * src/recording/recorder.ts loads the account walker (common/record.ts) by its path at run time:
 * src/ and common/ are compiled apart (two rootDirs), and the kit, which holds the walker too,
 * never imports src/. This is the typed link between the two, compiled here and its errors
 * asserted: the walker must be what the recorder takes it for, and a walker that wants more than
 * the recorder gives must not pass for one.
 */
const LINK = `
  import * as walker from '../common/record';
  import type { Recorder } from '../src/recording/recorder';
`;

it('the walker the recorder loads, common/record.ts, is what the recorder types', () => {
  expect(typeErrors(`${LINK} export const asLoaded: Recorder = walker;`)).toEqual([]);
});

it('a walker that wants more than the recorder gives it does not pass for one', () => {
  const errors = typeErrors(`${LINK}
    const wanting = {
      walkAccount: (
        options: Parameters<typeof walker.walkAccount>[0] & { region: string },
        sink: Parameters<typeof walker.walkAccount>[1],
      ) => walker.walkAccount(options, sink),
    };
    export const wrong: Recorder = wanting;
  `);
  expect(errors).toEqual([expect.stringMatching(/Property 'region' is missing/)]);
});

import * as walker from '../../common/record';
import type { Recorder } from '../../src/recording/recorder';

/**
 * src/recording/recorder.ts loads the account walker (common/record.ts) by its path at run time:
 * src/ and common/ are compiled apart (two rootDirs), and the kit, which holds the walker too,
 * never imports src/. This is the typed link between the two: it compiles only while the walker
 * is what the recorder takes it for (npm test's typecheck covers test/).
 */
const asLoaded: Recorder = walker;

it('the walker the recorder loads is common/record.ts, with the walkAccount the recorder types', () => {
  expect(asLoaded.walkAccount).toBe(walker.walkAccount);
});

it('a walker that wants more than the recorder gives it does not pass for one', () => {
  const wanting = {
    walkAccount: (
      options: Parameters<typeof walker.walkAccount>[0] & { region: string },
      sink: Parameters<typeof walker.walkAccount>[1],
    ) => walker.walkAccount(options, sink),
  };
  // @ts-expect-error walkAccount would need a region that the recorder never sends
  const wrong: Recorder = wanting;
  expect(typeof wrong.walkAccount).toBe('function');
});

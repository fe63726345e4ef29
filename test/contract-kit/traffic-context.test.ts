import { contextOf } from '../../contract-tests/model/harness';
import { findRule } from '../../contract-tests/rules/rules';

/**
 * The test of a rule the judge alone decides sends requests and checks nothing (rules.ts
 * `decidedByJudge`): every check there, passing or not, is a bug of the kit's, never a verdict.
 */
describe('the context of a rule’s test', () => {
  it('refuses every check for a rule the judge alone decides, and lets the others check', () => {
    const decided = contextOf(findRule('contacts.unknown-id')!);
    expect(() => decided.check(true, 'a refusal')).toThrow(
      'contacts.unknown-id is decided by the judge alone (rules.ts): its test sends requests and checks nothing, but it checked "a refusal"',
    );
    expect(() => decided.notRun('no contact could be made')).toThrow('no contact could be made');
    const judgedByBoth = contextOf(findRule('mock.limit-bounds')!);
    expect(() => judgedByBoth.check(true, 'a page')).not.toThrow();
    expect(() => judgedByBoth.check(false, 'a page')).toThrow('a page');
  });
});

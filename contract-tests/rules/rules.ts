/**
 * The rule catalogue: every rule the kit checks, put together from the rules' homes. `documented`
 * rules come from the API's documented rules (docs/api.md, part 1, by section) and are checked in
 * both rule sets; `mock` rules come from the mock's conventions (docs/api.md, part 2, C1-C20) and
 * only in the `mock` rule set. What a rule is, and what its home holds: rules/rule.ts.
 * Every test in this folder names exactly one of these ids, and every id has a test; every module
 * of the judge that judges a rule is claimed in its home (test/contract-kit/catalogue.test.ts
 * checks all three).
 */

import { API_RULES } from './api';
import { CONTACT_RULES } from './contacts';
import { CONVENTION_RULES } from './conventions';
import { LIST_RULES } from './lists';
import { MESSAGE_RULES } from './messages';
import type { Rule, RuleSet } from './rule';

export { RULE_SETS, type Rule, type RuleSet } from './rule';

export const RULES: readonly Rule[] = [
  ...API_RULES,
  ...CONTACT_RULES,
  ...LIST_RULES,
  ...MESSAGE_RULES,
  ...CONVENTION_RULES,
];

export function findRule(id: string): Rule | undefined {
  return RULES.find((rule) => rule.id === id);
}

/** The rules a rule set checks: `documented` only the document's, `mock` both. */
export function rulesOf(ruleSet: RuleSet): Rule[] {
  return RULES.filter((rule) => ruleSet === 'mock' || rule.ruleSet === 'documented');
}

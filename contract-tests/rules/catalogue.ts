import fs from 'node:fs';
import path from 'node:path';
import { RULES, type Rule } from './rules';

/**
 * The catalogue check: every rule has at least one test, every test names a known rule, and a
 * rule's test sits in a file of its rule set (mock rules only in *.mock.contract.ts). Read from the
 * source, so that it holds for both rule sets without running anything.
 */
interface CatalogueUse {
  file: string;
  ruleId: string;
}

const RULE_CALL = /\brule\(\s*(['"`])([^'"`]+)\1/g;
// Any jest test declared directly, which would name no rule.
const BARE_TEST = /(^|[^.\w])(it|test)(\.(only|skip|each|concurrent|failing))?\(/m;

function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.contract.ts'))
    .sort()
    .map((name) => path.join(dir, name));
}

export function checkCatalogue(dir: string, rules: readonly Rule[] = RULES): string[] {
  const problems: string[] = [];
  const uses: CatalogueUse[] = [];
  for (const file of testFiles(dir)) {
    const source = fs.readFileSync(file, 'utf8');
    const name = path.basename(file);
    for (const match of source.matchAll(RULE_CALL)) uses.push({ file: name, ruleId: match[2]! });
    if (BARE_TEST.test(source))
      problems.push(`${name} declares a test with it() or test(), which names no rule; use rule('<id>', …)`);
  }
  const known = new Map(rules.map((rule) => [rule.id, rule]));
  for (const use of uses) {
    const rule = known.get(use.ruleId);
    if (!rule) problems.push(`${use.file} has a test for "${use.ruleId}", which is not in the catalogue`);
    else if ((rule.ruleSet === 'mock') !== use.file.endsWith('.mock.contract.ts')) {
      problems.push(
        `${use.file} has a test for the ${rule.ruleSet} rule "${use.ruleId}"; ${rule.ruleSet === 'mock' ? 'mock rules belong in *.mock.contract.ts' : 'documented rules do not belong in *.mock.contract.ts'}`,
      );
    }
  }
  const ids = new Set(rules.map((r) => r.id));
  if (ids.size !== rules.length) problems.push('the catalogue lists a rule id twice');
  for (const rule of rules) {
    if (!uses.some((use) => use.ruleId === rule.id)) problems.push(`the rule "${rule.id}" has no test`);
  }
  return problems;
}

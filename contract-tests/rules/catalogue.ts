import fs from 'node:fs';
import path from 'node:path';
import { PRINCIPLES, type Principle } from './rule';
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

/** A rule id as the judge's source names it: a quoted string, outside comments. */
const QUOTED = /(['"`])([a-z0-9]+(?:\.[a-z0-9-]+)+)\1/g;
// `v.has(id)` asks whether the rule set holds a rule: it judges nothing.
const ASKED = /\.has\(\s*(['"`])[^'"`]+\1\s*\)/g;
const COMMENTS = /\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm;

/**
 * The homes' claims against the judge's source: a module of the judge (judge/<module>.ts) that
 * names a rule judges it, so the rule's home must say how (`judged`, under the module's
 * principle, rules/rule.ts); and a home must not claim a principle whose module never names the
 * rule. Read from the source, as the catalogue check is.
 */
export function checkClaims(judgeDir: string, rules: readonly Rule[] = RULES): string[] {
  const problems: string[] = [];
  const known = new Set(rules.map((rule) => rule.id));
  const modules = new Map<string, Principle>(
    Object.entries(PRINCIPLES).map(([principle, { module }]) => [module, principle as Principle]),
  );
  const named = new Map<Principle, Set<string>>();
  for (const name of fs
    .readdirSync(judgeDir)
    .filter((n) => n.endsWith('.ts'))
    .sort()) {
    const source = fs
      .readFileSync(path.join(judgeDir, name), 'utf8')
      .replace(COMMENTS, '$1')
      .replace(ASKED, '');
    const ids = new Set([...source.matchAll(QUOTED)].map((m) => m[2]!).filter((id) => known.has(id)));
    const principle = modules.get(name.slice(0, -'.ts'.length));
    if (principle) named.set(principle, ids);
    else if (ids.size > 0)
      problems.push(`judge/${name} judges ${[...ids].join(', ')}, but is no principle of rules/rule.ts`);
  }
  for (const rule of rules) {
    const claimed = Object.keys(rule.judged) as Principle[];
    if (claimed.length === 0) problems.push(`the home of "${rule.id}" says nothing of how it is judged`);
    for (const [principle, ids] of named) {
      const module = `judge/${PRINCIPLES[principle].module}.ts`;
      if (ids.has(rule.id) && !claimed.includes(principle))
        problems.push(`${module} judges "${rule.id}", which its home does not claim (judged.${principle})`);
      if (!ids.has(rule.id) && claimed.includes(principle))
        problems.push(`the home of "${rule.id}" claims judged.${principle}, but ${module} never judges it`);
    }
  }
  return problems;
}

/**
 * Writes the rule catalogue into docs/contract-kit.md, between its markers, from rules.ts:
 * `npx tsx contract-tests/rules/readme.ts`. test/contract-kit/catalogue.test.ts checks that it is current.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RULES, type Rule } from './rules';

/** The page that lists the catalogue: the contract kit's page of the docs. */
export const PAGE = path.join(__dirname, '..', '..', 'docs', 'contract-kit.md');
const START =
  '<!-- rules:start (generated from contract-tests/rules/rules.ts by contract-tests/rules/readme.ts) -->';
const END = '<!-- rules:end -->';

export function catalogueTable(): string {
  const rows = RULES.map(
    (r) => `| \`${r.id}\` | ${r.ruleSet} | ${r.section} | ${r.sentence.replace(/\|/g, '\\|')} |`,
  );
  return ['| Rule | Rule set | Section | Sentence |', '|---|---|---|---|', ...rows].join('\n');
}

export function withCatalogue(page: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from === -1 || to === -1) throw new Error(`docs/contract-kit.md lacks the markers ${START} … ${END}`);
  return `${page.slice(0, from + START.length)}\n\n${catalogueTable()}\n\n${page.slice(to)}`;
}

/** The rules as the page lists them (whatever the table's formatting). */
export function rulesInPage(page: string): Omit<Rule, never>[] {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  return page
    .slice(from + START.length, to)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|'));
      return {
        id: cells[0]!.replace(/`/g, ''),
        ruleSet: cells[1] as Rule['ruleSet'],
        section: cells[2]!,
        sentence: cells[3]!,
      };
    });
}

if (require.main === module) {
  void (async () => {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(PAGE)) ?? {};
    const text = await prettier.format(withCatalogue(fs.readFileSync(PAGE, 'utf8')), {
      ...options,
      filepath: PAGE,
    });
    fs.writeFileSync(PAGE, text);
  })();
}

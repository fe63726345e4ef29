/**
 * Writes the rule catalogue into the project's README.md, between its markers, from rules.ts:
 * `npx tsx contract-tests/readme.ts`. test/contract-kit/catalogue.test.ts checks that it is current.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RULES, type Rule } from './rules';

export const README = path.join(__dirname, '..', 'README.md');
const START = '<!-- rules:start (generated from contract-tests/rules.ts by contract-tests/readme.ts) -->';
const END = '<!-- rules:end -->';

export function catalogueTable(): string {
  const rows = RULES.map(
    (r) => `| \`${r.id}\` | ${r.profile} | ${r.section} | ${r.sentence.replace(/\|/g, '\\|')} |`,
  );
  return ['| Rule | Profile | Section | Sentence |', '|---|---|---|---|', ...rows].join('\n');
}

export function withCatalogue(readme: string): string {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from === -1 || to === -1) throw new Error(`README.md lacks the markers ${START} … ${END}`);
  return `${readme.slice(0, from + START.length)}\n\n${catalogueTable()}\n\n${readme.slice(to)}`;
}

/** The rules as the README lists them (whatever the table's formatting). */
export function rulesInReadme(readme: string): Omit<Rule, never>[] {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  return readme
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
        profile: cells[1] as Rule['profile'],
        section: cells[2]!,
        sentence: cells[3]!,
      };
    });
}

if (require.main === module) {
  void (async () => {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(README)) ?? {};
    const text = await prettier.format(withCatalogue(fs.readFileSync(README, 'utf8')), {
      ...options,
      filepath: README,
    });
    fs.writeFileSync(README, text);
  })();
}

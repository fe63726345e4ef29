/**
 * The rules that no single-fault rogue server can break alone, each with why: every other rule of
 * contract-tests/rules/rules.ts has a rogue (rogues.test.ts, convention-rogues.test.ts). docs/contract-kit.md
 * lists them between its markers, written from here: `npx tsx test/contract-kit/without-rogue.ts`;
 * convention-rogues.test.ts checks that the page lists exactly these.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface WithoutRogue {
  rule: string;
  why: string;
}

export const WITHOUT_ROGUE: readonly WithoutRogue[] = [
  {
    rule: 'api.v1-prefix',
    why:
      'The kit reaches every endpoint at the base URL plus /v1, so the prefix is under every other rule: ' +
      'a server that does not answer an endpoint under /v1 (a 404, a redirect to /v2) fails every rule of ' +
      'that endpoint too, and one that answers nothing under /v1 cannot be told from a wrong base URL ' +
      '(the run exits 2). No fault breaks the prefix alone.',
  },
];

export const PAGE = path.join(__dirname, '..', '..', 'docs', 'contract-kit.md');
const START = '<!-- without-rogue:start (generated from test/contract-kit/without-rogue.ts) -->';
const END = '<!-- without-rogue:end -->';

function table(): string {
  const rows = WITHOUT_ROGUE.map((r) => `| \`${r.rule}\` | ${r.why.replace(/\|/g, '\\|')} |`);
  return ['| Rule | Why no rogue breaks it alone |', '|---|---|', ...rows].join('\n');
}

/** The rules and reasons as the page lists them (whatever the table's formatting). */
export function withoutRogueInPage(page: string): WithoutRogue[] {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from === -1 || to === -1) throw new Error(`docs/contract-kit.md lacks the markers ${START} … ${END}`);
  return page
    .slice(from + START.length, to)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|'));
      return { rule: cells[0]!.replace(/`/g, ''), why: cells[1]! };
    });
}

if (require.main === module) {
  void (async () => {
    const prettier = await import('prettier');
    const page = fs.readFileSync(PAGE, 'utf8');
    const from = page.indexOf(START);
    const to = page.indexOf(END);
    if (from === -1 || to === -1) throw new Error(`docs/contract-kit.md lacks the markers ${START} … ${END}`);
    const written = `${page.slice(0, from + START.length)}\n\n${table()}\n\n${page.slice(to)}`;
    const options = (await prettier.resolveConfig(PAGE)) ?? {};
    fs.writeFileSync(PAGE, await prettier.format(written, { ...options, filepath: PAGE }));
  })();
}

/**
 * The rules that no single-fault rogue server can break alone, each with why: every other rule of
 * contract-tests/rules/rules.ts has a rogue (rogues.test.ts, convention-rogues.test.ts). docs/contract-kit.md
 * lists them between its markers, written from here: `npx tsx test/contract-kit/without-rogue.ts`;
 * convention-rogues.test.ts checks that the page lists exactly these.
 */
import path from 'node:path';
import { blockText, tableRows, writeBlock, type PageBlock } from '../../contract-tests/rules/readme';

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
const LISTED: PageBlock = {
  page: PAGE,
  start: '<!-- without-rogue:start (generated from test/contract-kit/without-rogue.ts) -->',
  end: '<!-- without-rogue:end -->',
};

function table(): string {
  const rows = WITHOUT_ROGUE.map((r) => `| \`${r.rule}\` | ${r.why.replace(/\|/g, '\\|')} |`);
  return ['| Rule | Why no rogue breaks it alone |', '|---|---|', ...rows].join('\n');
}

/** The rules and reasons as the page lists them (whatever the table's formatting). */
export function withoutRogueInPage(page: string): WithoutRogue[] {
  return tableRows(blockText(page, LISTED)).map((cells) => ({
    rule: cells[0]!.replace(/`/g, ''),
    why: cells[1]!,
  }));
}

if (require.main === module) void writeBlock(LISTED, table());

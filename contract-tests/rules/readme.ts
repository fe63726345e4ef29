/**
 * Writes the rule catalogue into docs/contract-kit.md, between its markers, from rules.ts:
 * `npx tsx contract-tests/rules/readme.ts`. test/contract-kit/catalogue.test.ts checks that it is current.
 *
 * The catalogue is one generated block of a page (the text between a start and an end marker, HTML
 * comments); the tests keep others of their own and read and write them with the same functions.
 * A tool of the clone, not of the kit: it loads prettier, and scripts/pack.js leaves it out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PRINCIPLES, type Principle } from './rule';
import { RULES, type Rule } from './rules';

export interface PageBlock {
  /** The page's file. */
  page: string;
  start: string;
  end: string;
}

const ROOT = path.join(__dirname, '..', '..');

/** The page that lists the catalogue: the contract kit's page of the docs. */
export const PAGE = path.join(ROOT, 'docs', 'contract-kit.md');
const CATALOGUE: PageBlock = {
  page: PAGE,
  start:
    "<!-- rules:start (generated from the rules' homes in contract-tests/rules/ by contract-tests/rules/readme.ts) -->",
  end: '<!-- rules:end -->',
};

function bounds(text: string, block: PageBlock): { from: number; to: number } {
  const from = text.indexOf(block.start);
  const to = text.indexOf(block.end);
  if (from === -1 || to === -1)
    throw new Error(`${path.relative(ROOT, block.page)} lacks the markers ${block.start} … ${block.end}`);
  return { from: from + block.start.length, to };
}

/** The text between the block's markers in `text` (the page's contents). */
export function blockText(text: string, block: PageBlock): string {
  const { from, to } = bounds(text, block);
  return text.slice(from, to);
}

/** The rows of a Markdown table whose first cell is code (`| \`id\` | … |`), cell by cell, unescaped. */
export function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|')),
    );
}

/** Writes `content` between the block's markers in its page, and formats the page as Prettier would. */
export async function writeBlock(block: PageBlock, content: string): Promise<void> {
  const prettier = await import('prettier');
  const text = fs.readFileSync(block.page, 'utf8');
  const { from, to } = bounds(text, block);
  const written = `${text.slice(0, from)}\n\n${content}\n\n${text.slice(to)}`;
  const options = (await prettier.resolveConfig(block.page)) ?? {};
  fs.writeFileSync(block.page, await prettier.format(written, { ...options, filepath: block.page }));
}

/** The lead of the line, under the table, of the rules the judge alone decides. */
const BY_JUDGE =
  'The judge alone decides these rules: their tests send the requests that show them, and check nothing themselves:';

/** The heading of the list, under the table, of how the judge judges each rule. */
const HOW_JUDGED = '### How the judge judges each rule';

/** How each rule is judged, as the page lists it: the rule, then each principle's title and claim. */
function judgedList(): string {
  return RULES.map((r) =>
    [
      `- \`${r.id}\``,
      ...(Object.entries(r.judged) as [Principle, string][]).map(
        ([principle, claim]) => `  - ${PRINCIPLES[principle].title}: ${claim}`,
      ),
    ].join('\n'),
  ).join('\n');
}

const TITLES = new Map(
  (Object.entries(PRINCIPLES) as [Principle, { title: string }][]).map(([principle, { title }]) => [
    title,
    principle,
  ]),
);

/** Each rule's claims, read back from the list. */
function judgedInList(text: string): Map<string, Rule['judged']> {
  const found = new Map<string, Partial<Record<Principle, string>>>();
  let current: Partial<Record<Principle, string>> | undefined;
  for (const line of text.split('\n')) {
    const rule = /^- `([^`]+)`$/.exec(line);
    if (rule) found.set(rule[1]!, (current = {}));
    const claim = /^ {2}- (.+?): (.*)$/.exec(line);
    const principle = claim && TITLES.get(claim[1]!);
    if (current && principle) current[principle] = claim[2]!;
  }
  return found;
}

export function catalogueTable(): string {
  const rows = RULES.map(
    (r) => `| \`${r.id}\` | ${r.ruleSet} | ${r.section} | ${r.sentence.replace(/\|/g, '\\|')} |`,
  );
  const byJudge = RULES.filter((r) => r.decidedByJudge).map((r) => `\`${r.id}\``);
  return [
    '| Rule | Rule set | Section | Sentence |',
    '|---|---|---|---|',
    ...rows,
    '',
    BY_JUDGE,
    `${byJudge.join(', ')}.`,
    '',
    HOW_JUDGED,
    '',
    'Each principle of the judge is one way it looks at every exchange (one module of `contract-tests/judge/`); under each rule, what each principle that judges it holds against it.',
    '',
    judgedList(),
  ].join('\n');
}

/** The rules as the page lists them (whatever the table's formatting). */
export function rulesInPage(page: string): Rule[] {
  const whole = blockText(page, CATALOGUE);
  const [block = '', list = ''] = whole.split(HOW_JUDGED);
  const judged = judgedInList(list);
  const [, judgeLine = ''] = block.split(BY_JUDGE);
  const byJudge = new Set([...judgeLine.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  return tableRows(block).map((cells) => {
    const id = cells[0]!.replace(/`/g, '');
    return {
      id,
      ruleSet: cells[1] as Rule['ruleSet'],
      section: cells[2]!,
      sentence: cells[3]!,
      judged: judged.get(id) ?? {},
      ...(byJudge.has(id) ? { decidedByJudge: true as const } : {}),
    };
  });
}

if (require.main === module) void writeBlock(CATALOGUE, catalogueTable());

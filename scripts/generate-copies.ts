/**
 * `npm run generate`: writes src/store/copies.generated.ts, the store's copies of its records,
 * from the field tables (src/resources/), and src/twin/value-forms.generated.ts (below). The store keeps records of one shape and renders them
 * with object literals (docs/performance.md), so the copies are code written out field by field;
 * writing them from the tables keeps them in step with every field, an added one too. Each copy
 * says `satisfies Complete<…>`, so a copy that has fallen behind its table does not compile.
 *
 * The files are not kept in git: `npm start`, `npm run build`, `npm pack` and `npm test` write it (they build first).
 * `--check` only says whether it is up to date (exit code 1 when it is not).
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONTACT } from '../src/resources/contact';
import { fixedFallback, type Table } from '../src/resources/field';
import { MESSAGE } from '../src/resources/message';

export const COPIES_FILE = path.join(__dirname, '..', 'src', 'store', 'copies.generated.ts');

/**
 * `{ name: from.name, … }` over the fields `keep` keeps, the sender field given as `sender`. From
 * data (`fromData`), a field with a fixed fallback that the data leaves out is its fallback.
 */
function literal(
  table: Table,
  from: string,
  keep: (name: string) => boolean,
  extra: string[] = [],
  fromData = false,
): string {
  const value = (name: string): string => {
    if (table[name]!.type === 'sender') return 'sender';
    const fallback = fromData ? fixedFallback(table[name]!) : undefined;
    return fallback === undefined
      ? `${from}.${name}`
      : `${from}.${name} === undefined ? ${JSON.stringify(fallback)} : ${from}.${name}`;
  };
  const lines = Object.keys(table)
    .filter(keep)
    .map((name) => `    ${name}: ${value(name)},`);
  return ['{', ...lines, ...extra.map((line) => `    ${line},`), '  }'].join('\n');
}

const stored = (table: Table) => (name: string) => table[name]!.stored;
const all = () => true;

function copy(doc: string, signature: string, body: string, type: string): string {
  return `/** ${doc} */\nexport function ${signature} {\n  return ${body} satisfies Complete<${type}>;\n}\n`;
}

export function copiesSource(): string {
  return [
    '// Written by scripts/generate-copies.ts from the field tables (src/resources/): do not edit.',
    '// `npm run generate` writes it again.',
    "import type { Complete, Contact, ContactData, Message, MessageContact, MessageData, StoredMessage } from '../types';",
    "import type { ContactRecord, MessageRecord } from './records';",
    '',
    copy(
      "A contact's record from data: a fresh literal of one shape, the known fields only, with its key.",
      'contactRecord(c: ContactData, key: number): ContactRecord',
      literal(CONTACT, 'c', all, ['key'], true),
      'ContactRecord',
    ),
    copy(
      'A contact as the API shows it: its record without the key.',
      'contactView(r: ContactRecord): Contact',
      literal(CONTACT, 'r', all),
      'Contact',
    ),
    copy(
      "A contact as a message's contact shows it (document 2.2).",
      'senderView(r: ContactRecord): MessageContact',
      literal(CONTACT, 'r', (name) => (CONTACT as Table)[name]!.sender),
      'MessageContact',
    ),
    copy(
      "A message's record from data: its stored fields and its key.",
      'messageRecord(m: MessageData, key: number): MessageRecord',
      literal(MESSAGE, 'm', stored(MESSAGE), ['key'], true),
      'MessageRecord',
    ),
    copy(
      'A message as the API shows it, with `sender`, the view of its contact as it is now.',
      'messageView(r: MessageRecord, sender: Readonly<MessageContact>): Message',
      literal(MESSAGE, 'r', all),
      'Message',
    ),
    copy(
      'A message as the fixture format has it: its record without the key.',
      'storedMessage(r: MessageRecord): StoredMessage',
      literal(MESSAGE, 'r', stored(MESSAGE)),
      'StoredMessage',
    ),
  ].join('\n');
}

/**
 * The mock's copy of the forms of a value (common/value-forms.ts): part of the server profile's
 * format, which the kit names values by and a twin refuses them by. src/ is built on its own (it
 * never reaches into common/), so it gets the same definitions, copied as they are.
 */
export const FORMS_FILE = path.join(__dirname, '..', 'src', 'twin', 'value-forms.generated.ts');

function formsSource(): string {
  const common = fs.readFileSync(path.join(__dirname, '..', 'common', 'value-forms.ts'), 'utf8');
  return `// Written by scripts/generate-copies.ts from common/value-forms.ts (npm run generate): do not edit.\n${common}`;
}

function main(): void {
  const files: [string, string][] = [
    [COPIES_FILE, copiesSource()],
    [FORMS_FILE, formsSource()],
  ];
  for (const [file, source] of files) {
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    if (process.argv.includes('--check')) {
      if (current !== source) {
        console.error(`${path.relative(process.cwd(), file)} is out of date: npm run generate`);
        process.exitCode = 1;
      }
      continue;
    }
    if (current === source) continue;
    // Written aside, then renamed over: a build or a test run reading it meanwhile sees a whole file.
    const aside = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(aside, source);
    fs.renameSync(aside, file);
  }
}

if (require.main === module) main();

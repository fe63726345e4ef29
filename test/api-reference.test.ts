import fs from 'node:fs';
import path from 'node:path';
import { formatCatalogue, toJson } from '../contract-tests/cli';
import { REFERENCE } from '../contract-tests/rules/reference';
import { formatConsole } from '../contract-tests/report/console';
import { buildJunit } from '../contract-tests/report/junit';
import { buildMarkdown } from '../contract-tests/report/markdown';
import { RULES } from '../contract-tests/rules/rules';
import type { KitResult } from '../contract-tests/run';

/**
 * docs/api.md is the project's own API reference: the kit's verdicts cite its sections, so every
 * section a rule names must be there, and nothing in the repository may send a reader elsewhere.
 */
const ROOT = path.resolve(__dirname, '..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');

/** What docs/api.md states: its numbered sections, the numbered rules of each, its conventions. */
function contents(markdown: string) {
  const sections = new Set<string>();
  const rules = new Set<string>();
  const conventions = new Set<string>();
  let current = '';
  let inRules = false;
  for (const line of markdown.split('\n')) {
    const heading = /^#{3,4} (\d+(?:\.\d+)?)\.? \S/.exec(line);
    const convention = /^### C(\d+)\. \S/.exec(line);
    if (heading) {
      current = heading[1]!;
      sections.add(current);
      inRules = false;
    } else if (convention) {
      conventions.add(`C${convention[1]}`);
      current = '';
    } else if (line === `Rules of ${current}:`) {
      inRules = true;
    } else if (inRules && /^\d+\. /.test(line)) {
      rules.add(`${current} rule ${/^(\d+)/.exec(line)![1]}`);
    } else if (/^#/.test(line)) {
      inRules = false;
    }
  }
  return { sections, rules, conventions };
}

describe('docs/api.md, the API reference', () => {
  const doc = contents(DOC);

  it('has the nine sections of the documented rules, their subsections, and the conventions C1 to C20', () => {
    expect([...doc.sections]).toEqual([
      '1',
      '2',
      '2.1',
      '2.2',
      '2.3',
      '2.4',
      '2.5',
      '3',
      '4',
      '4.1',
      '4.2',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
    expect([...doc.rules].filter((r) => r.startsWith('4.1 '))).toHaveLength(7);
    expect([...doc.rules].filter((r) => r.startsWith('4.2 '))).toHaveLength(5);
    expect([...doc.conventions]).toEqual(Array.from({ length: 20 }, (_, i) => `C${i + 1}`));
  });

  it('states every section, rule and convention that the kit catalogue cites', () => {
    const missing: string[] = [];
    for (const rule of RULES) {
      for (const cited of rule.section.split(/,\s*/)) {
        const found = /^C\d+$/.test(cited)
          ? doc.conventions.has(cited)
          : / rule /.test(cited)
            ? doc.rules.has(cited)
            : doc.sections.has(cited);
        if (!found) missing.push(`${rule.id}: §${cited}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('is the file the kit cites, in the repository and so in the package', () => {
    expect(REFERENCE.path).toBe(path.join(ROOT, 'docs', 'api.md'));
    expect(REFERENCE.title).toMatch(/^docs\/api\.md of messaging-api-mock \d+\.\d+\.\d+/);
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      files: string[];
    };
    expect(manifest.files).toContain('docs/api.md');
  });
});

describe('what cites the reference', () => {
  const rule = RULES.find((r) => r.id === 'contacts.create.requires-username-and-phone-number')!;
  const result: KitResult = {
    exitCode: 1,
    baseUrl: 'http://127.0.0.1:9',
    ruleSet: 'documented',
    runId: 'ctabcdef',
    startedAt: new Date(0).toISOString(),
    durationMs: 1000,
    verdicts: [{ rule, verdict: 'fail', reason: 'a create without username was accepted', tests: [] }],
    judged: { judged: 1, rules: 1, acceptedNotRun: [] },
    problems: [],
    serverProfile: {},
    requests: 12,
    created: { contacts: 1, messages: 0 },
    leftovers: [],
  };

  it('the console verdicts, the JUnit, Markdown and JSON reports name docs/api.md and where it is', () => {
    expect(formatConsole(result)).toContain(`docs/api.md of messaging-api-mock`);
    expect(formatConsole(result)).toContain(REFERENCE.path);
    const junit = buildJunit(result);
    expect(junit).toContain(`<property name="reference" value="${REFERENCE.title}: ${REFERENCE.path}"/>`);
    expect(junit).toContain('<property name="reference" value="docs/api.md §4.1, 4.1 rule 7"/>');
    const markdown = buildMarkdown(result);
    expect(markdown).toContain(`[${REFERENCE.title}](file://${REFERENCE.path})`);
    const json = toJson(result) as {
      reference: typeof REFERENCE;
      verdicts: { reference: string }[];
    };
    expect(json.reference.path).toBe(REFERENCE.path);
    expect(json.verdicts[0]!.reference).toBe('docs/api.md §4.1, 4.1 rule 7');
    expect(formatCatalogue()).toContain(rule.id);
  });
});

describe('the repository', () => {
  it('points nowhere outside itself for the API (only CI may know of the folder beside the clone)', () => {
    // Built from pieces, so that this file does not match itself.
    const outside = new RegExp(`\\.\\./${'shared'}|${['shared', 'spec'].join('/')}`);
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (['node_modules', '.git', 'dist', 'reports', 'coverage', '.ci'].includes(entry.name)) continue;
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.(md|ts|js|json|sh|yml|yaml|txt)$/.test(entry.name)) {
          fs.readFileSync(file, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (outside.test(line)) offenders.push(`${path.relative(ROOT, file)}:${i + 1}`);
            });
        }
      }
    };
    walk(ROOT);
    expect(offenders).toEqual([]);
  });

  it('links the reference from the README', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('](docs/api.md)');
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkCatalogue, checkClaims } from '../../contract-tests/rules/catalogue';
import { PAGE, rulesInPage } from '../../contract-tests/rules/readme';
import { RULES, type Rule } from '../../contract-tests/rules/rules';

const KIT = path.resolve(__dirname, '..', '..', 'contract-tests', 'probes');
const JUDGE = path.resolve(__dirname, '..', '..', 'contract-tests', 'judge');

describe('the rule catalogue', () => {
  it('has a test for every rule, and every test names a rule of its rule set', () => {
    expect(checkCatalogue(KIT)).toEqual([]);
  });

  it("says in each rule's home how the judge judges it, module by module, and nothing the judge does not do", () => {
    expect(checkClaims(JUDGE)).toEqual([]);
  });

  it('is listed, as it is, in docs/contract-kit.md (regenerate: npx tsx contract-tests/rules/readme.ts)', () => {
    expect(rulesInPage(fs.readFileSync(PAGE, 'utf8'))).toEqual(RULES.map((r) => ({ ...r })));
  });

  it('gives every rule a section and a sentence, and ids in one style', () => {
    for (const rule of RULES) {
      expect(rule.id).toMatch(/^[a-z0-9]+(\.[a-z0-9-]+)+$/);
      expect(rule.section).not.toBe('');
      expect(rule.sentence.length).toBeGreaterThan(20);
    }
  });

  describe('the check itself', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const rules: Rule[] = [
      {
        id: 'a.one',
        section: '1',
        sentence: 'the first rule of the test catalogue',
        ruleSet: 'documented',
        judged: { views: 'every view of it' },
      },
      {
        id: 'a.two',
        section: '2',
        sentence: 'the second rule of the test catalogue',
        ruleSet: 'mock',
        judged: { writes: 'the answer to a write', lists: 'every list page' },
      },
    ];

    it('fails when a rule has no test', () => {
      fs.writeFileSync(path.join(dir, 'a.contract.ts'), "rule('a.one', 'x', async (t) => {});\n");
      expect(checkCatalogue(dir, rules)).toEqual(['the rule "a.two" has no test']);
    });

    it('fails when a test names no rule, or an unknown one, or one of the other rule set', () => {
      fs.writeFileSync(
        path.join(dir, 'a.contract.ts'),
        "rule('a.one', 'x', async (t) => {});\nrule('a.three', 'y', async (t) => {});\ntest('z', () => {});\n",
      );
      fs.writeFileSync(path.join(dir, 'b.contract.ts'), "rule('a.two', 'x', async (t) => {});\n");
      expect(checkCatalogue(dir, rules)).toEqual([
        "a.contract.ts declares a test with it() or test(), which names no rule; use rule('<id>', …)",
        'a.contract.ts has a test for "a.three", which is not in the catalogue',
        'b.contract.ts has a test for the mock rule "a.two"; mock rules belong in *.mock.contract.ts',
      ]);
    });

    it('fails when a module of the judge judges a rule its home does not claim, or a home claims what no module does', () => {
      fs.writeFileSync(
        path.join(dir, 'records.ts'),
        "// 'a.two' in a comment judges nothing\nv.check('a.one', p);\nv.check('a.two', q);\n",
      );
      fs.writeFileSync(path.join(dir, 'writes.ts'), "if (v.has('a.two')) v.check('a.one', p);\n");
      fs.writeFileSync(path.join(dir, 'lists.ts'), "const RULE = { x: 'a.two' } as const;\n");
      fs.writeFileSync(path.join(dir, 'elsewhere.ts'), "v.check('a.one');\n");
      expect(checkClaims(dir, rules)).toEqual([
        'judge/elsewhere.ts judges a.one, but is no principle of rules/rule.ts',
        'judge/writes.ts judges "a.one", which its home does not claim (judged.writes)',
        'judge/records.ts judges "a.two", which its home does not claim (judged.views)',
        'the home of "a.two" claims judged.writes, but judge/writes.ts never judges it',
      ]);
    });

    it('fails when a home says nothing of how its rule is judged', () => {
      expect(checkClaims(dir, [{ ...rules[0]!, judged: {} }])).toEqual([
        'the home of "a.one" says nothing of how it is judged',
      ]);
    });
  });
});

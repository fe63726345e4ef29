import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkCatalogue } from '../../contract-tests/rules/catalogue';
import { PAGE, rulesInPage } from '../../contract-tests/rules/readme';
import { RULES, type Rule } from '../../contract-tests/rules/rules';

const KIT = path.resolve(__dirname, '..', '..', 'contract-tests', 'probes');

describe('the rule catalogue', () => {
  it('has a test for every rule, and every test names a rule of its rule set', () => {
    expect(checkCatalogue(KIT)).toEqual([]);
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
      { id: 'a.one', section: '1', sentence: 'the first rule of the test catalogue', ruleSet: 'documented' },
      { id: 'a.two', section: '2', sentence: 'the second rule of the test catalogue', ruleSet: 'mock' },
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
  });
});

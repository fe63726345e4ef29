/**
 * --rule-set (CONTRACT_RULE_SET) names the set of rules a run checks; --profile and
 * CONTRACT_PROFILE are its old names, kept with a warning, so that "profile" means only the server
 * profile (--profile-out). Each run here has no server to reach (port 9): it exits 2 at once, after
 * the line that names its rule set, which is all these tests read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { proxyMain } from '../../contract-tests/proxy/cli';
import { runBin, type KitRun } from './harness';

const NOWHERE = ['--base-url', 'http://127.0.0.1:9', '--token', 't'];
const checking = (set: string) =>
  `Checking http://127.0.0.1:9 against the ${set} rule set, within a budget of`;
const warnings = (run: KitRun) => run.output.split('\n').filter((line) => line.includes(' is now '));

describe('the rule set option and its old names', () => {
  it('checks the set --rule-set names, and says so first, in the JSON report too', async () => {
    const run = await runBin([...NOWHERE, '--rule-set', 'mock']);
    expect(run.code).toBe(2);
    expect(run.output.split('\n')[0]).toContain(checking('mock'));
    expect(run.json?.ruleSet).toBe('mock');
    expect(warnings(run)).toEqual([]);
  }, 60_000);

  it('still takes --profile, with one warning line that sends it to --rule-set', async () => {
    const run = await runBin([...NOWHERE, '--profile', 'mock']);
    expect(run.code).toBe(2);
    expect(run.output).toContain(checking('mock'));
    expect(run.json?.ruleSet).toBe('mock');
    expect(warnings(run)).toEqual([
      'messaging-contract: --profile is now --rule-set (a set of rules; --profile-out is the server profile); read as --rule-set mock',
    ]);
  }, 60_000);

  it('still takes CONTRACT_PROFILE, with one warning line that sends it to CONTRACT_RULE_SET', async () => {
    const run = await runBin(NOWHERE, { CONTRACT_PROFILE: 'mock' });
    expect(run.output).toContain(checking('mock'));
    expect(warnings(run)).toEqual([
      'messaging-contract: CONTRACT_PROFILE is now CONTRACT_RULE_SET (a set of rules; --profile-out is the server profile); read as --rule-set mock',
    ]);
  }, 60_000);

  it('refuses --rule-set and --profile that disagree: a usage error (exit 2) naming both, before any request', async () => {
    const run = await runBin([...NOWHERE, '--rule-set', 'mock', '--profile', 'documented']);
    expect(run.code).toBe(2);
    expect(run.output).toContain('--rule-set mock and --profile documented name different rule sets');
    expect(run.output).not.toContain('Checking');
    const fromEnv = await runBin(NOWHERE, { CONTRACT_RULE_SET: 'documented', CONTRACT_PROFILE: 'mock' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.output).toContain(
      'CONTRACT_RULE_SET=documented and CONTRACT_PROFILE=mock name different rule sets',
    );
  }, 60_000);

  it('takes an empty CONTRACT_RULE_SET= or CONTRACT_PROFILE= as not set: the default, documented', async () => {
    for (const env of [{ CONTRACT_RULE_SET: '' }, { CONTRACT_PROFILE: '' }]) {
      const run = await runBin(NOWHERE, env);
      expect(run.output.split('\n')[0]).toContain(checking('documented'));
      expect(run.json?.ruleSet).toBe('documented');
      expect(warnings(run)).toEqual([]);
    }
  }, 60_000);

  it('takes every CONTRACT_* variable of the docs set empty as not set: the defaults, no usage error', async () => {
    const table = fs.readFileSync(path.join(__dirname, '../../docs/contract-kit.md'), 'utf8');
    const names = [...new Set(table.match(/\bCONTRACT_[A-Z0-9_]+/g))].filter(
      (name) => name !== 'CONTRACT_BASE_URL' && name !== 'CONTRACT_TOKEN',
    );
    expect(names).toEqual(
      expect.arrayContaining(['CONTRACT_SETTLE_MS', 'CONTRACT_TIMEOUT_MS', 'CONTRACT_SEED']),
    );
    const run = await runBin(NOWHERE, Object.fromEntries(names.map((name) => [name, ''])));
    expect(run.code).toBe(2);
    expect(run.output.split('\n')[0]).toContain(checking('documented'));
    expect(run.output).not.toContain('is invalid');
  }, 60_000);

  it('refuses a disagreeing --rule-set and --profile in the proxy too, before it listens', async () => {
    const errors: string[] = [];
    const error = jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    try {
      const code = await proxyMain([
        'node',
        'proxy',
        '--target',
        'http://127.0.0.1:9',
        '--rule-set',
        'mock',
        '--profile',
        'documented',
      ]);
      expect(code).toBe(2);
      expect(errors.join('\n')).toContain(
        '--rule-set mock and --profile documented name different rule sets',
      );
    } finally {
      error.mockRestore();
    }
  });
});

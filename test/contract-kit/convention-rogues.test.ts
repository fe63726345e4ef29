import { CONVENTION_ROGUES } from './convention-rogues';
import { failedRules, namedByJudge, runRogues, type KitRun } from './harness';
import { INPUT_ROGUES, MODEL_ROGUES, ROGUES, VIEW_ROGUES } from './servers';
import { SPACE_ROGUES } from './space-rogues';
import { RULES } from '../../contract-tests/rules/rules';
import { CONVENTION_JUDGE_ALSO_NAMES, CONVENTION_JUDGE_BLIND } from './judge-blind';

/**
 * The proof that the mock rule set can fail: against the real mock with exactly one of its
 * conventions broken (and every documented rule kept), the mock rule set exits 1 and names that
 * convention's rule, and only that rule.
 */
describe('the contract kit (mock rule set) against rogue servers of the conventions', () => {
  let runs = new Map<number, KitRun>();

  beforeAll(async () => {
    runs = await runRogues(CONVENTION_ROGUES, (rogue, i, url) => [
      '--base-url',
      url,
      '--token',
      `convention-rogue-${i}`,
      '--rule-set',
      'mock',
      ...(rogue.args ?? []),
    ]);
  }, 1_800_000);

  it.each(CONVENTION_ROGUES.map((rogue, i) => [rogue.rule, rogue.how, i] as const))(
    'fails %s on a server that %s',
    (rule, _how, i) => {
      const run = runs.get(i)!;
      expect({ failed: failedRules(run), code: run.code, problems: run.json?.problems }).toEqual({
        failed: [rule],
        code: 1,
        problems: [],
      });
    },
  );

  it('the judge of every exchange, alone, sees the fault of every rogue, but those it is known blind to (CONVENTION_JUDGE_BLIND, with why)', () => {
    const unseen = CONVENTION_ROGUES.map((rogue, i) => ({ rogue, run: runs.get(i)! }))
      .filter(({ rogue, run }) => !run.json?.verdicts.find((v) => v.rule === rogue.rule)?.judge?.violations)
      .map(({ rogue }) => rogue.how);
    expect(unseen.sort()).toEqual(Object.keys(CONVENTION_JUDGE_BLIND).sort());
  });

  it('the judge of every exchange, alone, names the rule of every rogue and no other, but for those it charges to other rules too (CONVENTION_JUDGE_ALSO_NAMES, with why)', () => {
    const more = CONVENTION_ROGUES.map((rogue, i) => ({ rogue, named: namedByJudge(runs.get(i)!) }))
      .filter(({ rogue }) => !(rogue.how in CONVENTION_JUDGE_BLIND))
      .filter(({ rogue, named }) => named.join() !== rogue.rule)
      .map(({ rogue }) => rogue.how);
    expect(more.filter((how) => !(how in CONVENTION_JUDGE_ALSO_NAMES))).toEqual([]);
    expect(
      Object.keys(CONVENTION_JUDGE_ALSO_NAMES).filter((how) => !CONVENTION_ROGUES.some((r) => r.how === how)),
    ).toEqual([]);
  });

  it('breaks every mock rule with one rogue at least', () => {
    const broken = new Set(CONVENTION_ROGUES.map((r) => r.rule));
    expect(RULES.filter((r) => r.ruleSet === 'mock' && !broken.has(r.id)).map((r) => r.id)).toEqual([]);
  });
});

describe('the rogue servers of every rule', () => {
  const rogues = [
    ...ROGUES,
    ...MODEL_ROGUES,
    ...INPUT_ROGUES,
    ...VIEW_ROGUES,
    ...SPACE_ROGUES,
    ...CONVENTION_ROGUES,
  ];

  it('break every rule of the catalogue, one rogue a rule at least', () => {
    const broken = new Set(rogues.map((r) => r.rule));
    expect(RULES.filter((r) => !broken.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it('name only rules of the catalogue', () => {
    const known = new Set(RULES.map((r) => r.id));
    expect(rogues.filter((r) => !known.has(r.rule)).map((r) => r.rule)).toEqual([]);
  });
});

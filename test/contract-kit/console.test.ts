import { formatConsole } from '../../contract-tests/report/console';
import { RULES } from '../../contract-tests/rules/rules';
import type { KitResult } from '../../contract-tests/run';

/** The run's console summary: what it says beside the verdicts. */
const failed = (id: string, exitCode: KitResult['exitCode'] = 1, problems: string[] = []): KitResult => ({
  exitCode,
  baseUrl: 'http://127.0.0.1:9',
  ruleSet: 'documented',
  runId: 'ctabcdef',
  startedAt: new Date(0).toISOString(),
  durationMs: 1000,
  verdicts: [{ rule: RULES.find((r) => r.id === id)!, verdict: 'fail', reason: 'left out', tests: [] }],
  judged: { judged: 1, rules: 1, acceptedNotRun: [] },
  problems,
  serverProfile: {},
  requests: 12,
  created: { contacts: 1, messages: 0 },
  leftovers: [],
});

const HINT = '--settle-ms <ms> gives them that long';

describe('the console summary', () => {
  const saved = process.env.CONTRACT_SETTLE_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.CONTRACT_SETTLE_MS;
    else process.env.CONTRACT_SETTLE_MS = saved;
  });

  it('points to --settle-ms when a list rule failed and none was given, never otherwise', () => {
    delete process.env.CONTRACT_SETTLE_MS;
    expect(formatConsole(failed('contacts.list'))).toContain(HINT);
    expect(formatConsole(failed('lists.has-more'))).toContain(HINT);
    expect(formatConsole(failed('contacts.create.requires-username-and-phone-number'))).not.toContain(HINT);
    process.env.CONTRACT_SETTLE_MS = '1500';
    expect(formatConsole(failed('contacts.list'))).not.toContain(HINT);
  });

  it('says, on its last line, that a run which could not judge did so for the reasons it lists', () => {
    const text = formatConsole(failed('contacts.list', 2, ['more than 10% of the answers were transient']));
    expect(text.trimEnd().split('\n').at(-1)).toMatch(
      /the run could not judge, for the reasons above \(exit 2\)$/,
    );
  });
});

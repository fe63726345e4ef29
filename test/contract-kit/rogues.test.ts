import { failedRules, namedByJudge, runRogues, type KitRun } from './harness';
import { INPUT_ROGUES, MODEL_ROGUES, ROGUES, VIEW_ROGUES } from './servers';
import { LASTING_ROGUES, SPACE_ROGUES } from './space-rogues';
import { RULES } from '../../contract-tests/rules/rules';
import { JUDGE_TITLE } from '../../contract-tests/judge/judge-run';
import { JUDGE_ALSO_NAMES, JUDGE_BLIND } from './judge-blind';

/**
 * The proof that the kit can fail: against the real mock with exactly one documented rule broken,
 * the documented rule set exits 1 and names that rule, and only that rule.
 */
describe('the contract kit against rogue servers', () => {
  let runs = new Map<number, KitRun>();
  const all = [
    ...ROGUES,
    ...MODEL_ROGUES,
    ...INPUT_ROGUES,
    ...VIEW_ROGUES,
    ...SPACE_ROGUES,
    ...LASTING_ROGUES,
  ];

  beforeAll(async () => {
    runs = await runRogues(all, (_rogue, i, url) => ['--base-url', url, '--token', `rogue-${i}`]);
  }, 1_800_000);

  it.each(all.map((rogue, i) => [rogue.rule, rogue.how, i] as const))(
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

  it('covers every check of the model: what must not change, what must be gone, identity, boundaries', () => {
    expect(new Set(MODEL_ROGUES.map((r) => r.rule))).toEqual(
      new Set([
        'messages.update.keeps-the-rest',
        'contacts.update.keeps-the-rest',
        'contacts.list',
        'contacts.update.display-name',
        'contacts.delete',
        'contacts.delete.cascades-conversation',
        'messages.delete.permanent',
        'messages.update.edit-text',
        'messages.contact-is-sender',
        'messages.update.add-reaction',
        'messages.update.add-attachment',
        'lists.has-more',
        'lists.pages',
      ]),
    );
  });

  it('covers the input space and the whole account: optional parameters left out, values changed, records taken by an operation on another, paging that repeats', () => {
    expect(INPUT_ROGUES.map((r) => r.how)).toEqual(
      expect.arrayContaining([
        'refuses a contact update without display_name',
        'refuses a message update of reactions alone, without message text',
        'cuts message texts at 200 characters',
        'drops the + of phone numbers',
        'replaces a given avatar_url with an empty string',
        'also deletes the next message of the conversation',
        "also empties another contact's conversation",
        'repeats the last item of a page at the top of the next (starting_after)',
      ]),
    );
  });

  it('judges every exchange of the run with the one judge: a fault in an answer that no test reads again (the first contact of a token, made while finding values the server takes) fails its rule, found by the judge', () => {
    const i = all.findIndex(
      (r) => r.how === 'answers the first contact a token creates with a fraction in created_at',
    );
    const verdict = runs.get(i)!.json!.verdicts.find((v) => v.rule === 'api.integer-timestamps');
    expect(verdict).toMatchObject({ verdict: 'fail', foundBy: JUDGE_TITLE });
  });

  it('covers the input space as the document draws it: value classes and long values on every operation, repeats and counts, updates at once, reads, ids, list parameters in pairs', () => {
    expect(SPACE_ROGUES.map((r) => r.rule)).toEqual([
      'messages.update.edit-text',
      'contacts.update.display-name',
      'contacts.update.display-name',
      'messages.update.add-attachment',
      'messages.update.add-reaction',
      'messages.update.add-reaction',
      'messages.send.new-message-defaults',
      'api.unique-ids',
      'messages.list.conversation-filter',
      'lists.limit',
      'messages.update.add-reaction',
      'messages.update.add-reaction',
      'messages.send.attachments',
      'messages.update.add-reaction',
      'contacts.update.display-name',
      'messages.update.updated-at',
      'lists.has-more',
      'messages.update.add-reaction',
      'contacts.update.display-name',
    ]);
  });

  it('covers what lasts: effects that go back seconds after a write, the trace of a refused write, two views of one record at once', () => {
    expect(LASTING_ROGUES.map((r) => r.rule)).toEqual([
      'messages.update.updated-at',
      'messages.update.updated-at',
      'api.auth-required',
      'contacts.list',
      'contacts.list',
      'contacts.update.display-name',
    ]);
  });

  it('covers every rule that issue 3 lists', () => {
    expect(new Set(ROGUES.map((r) => r.rule))).toEqual(
      new Set([
        'lists.default-page-size',
        'lists.has-more',
        'lists.limit',
        'contacts.create.display-name-defaults-to-username',
        'contacts.create.last-active-at-null',
        'contacts.create.conversation-id',
        'contacts.delete.cascades-conversation',
        'messages.delete.permanent',
        'messages.send.new-message-defaults',
        'messages.contact-fields',
        'api.auth-required',
        'contacts.update.only-display-name',
        'messages.reactions-shape',
        'messages.update.add-attachment',
        'messages.list.conversation-filter',
        'api.integer-timestamps',
      ]),
    );
  });
  it('the judge of every exchange, alone, sees the fault of every rogue, but those it is known blind to (JUDGE_BLIND, with why)', () => {
    const unseen = all
      .map((rogue, i) => ({ rogue, run: runs.get(i)! }))
      .filter(({ rogue, run }) => !run.json?.verdicts.find((v) => v.rule === rogue.rule)?.judge?.violations)
      .map(({ rogue }) => rogue.how);
    expect(unseen.sort()).toEqual(Object.keys(JUDGE_BLIND).sort());
  });

  it('the judge of every exchange, alone, names the rule of every rogue and no other, but for those it charges to other rules too (JUDGE_ALSO_NAMES, with why)', () => {
    const more = all
      .map((rogue, i) => ({ rogue, named: namedByJudge(runs.get(i)!) }))
      .filter(({ rogue }) => !(rogue.how in JUDGE_BLIND))
      .filter(({ rogue, named }) => named.join() !== rogue.rule)
      .map(({ rogue }) => rogue.how);
    expect(more.filter((how) => !(how in JUDGE_ALSO_NAMES))).toEqual([]);
    expect(Object.keys(JUDGE_ALSO_NAMES).filter((how) => !all.some((r) => r.how === how))).toEqual([]);
  });

  it('breaks every documented rule with one rogue at least', () => {
    const broken = new Set(all.map((r) => r.rule));
    expect(RULES.filter((r) => r.ruleSet === 'documented' && !broken.has(r.id)).map((r) => r.id)).toEqual([]);
  });
});

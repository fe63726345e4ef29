import { startJudging } from '../../contract-tests/judge/judging';
import {
  besideTheTests,
  JUDGE_MISSED,
  verdictOf,
  withTheJudge,
  type RuleVerdict,
} from '../../contract-tests/judge/rule-verdict';
import { JUDGE_TITLE } from '../../contract-tests/judge/judge-run';
import { findRule } from '../../contract-tests/rules/rules';
import type { ProxyExchange } from '../../contract-tests/http/exchange';
import { contact, exchange, page } from './exchanges';

/**
 * The judge follows a list walked page by page to its end (judge/walks.ts): what the session saw
 * alive before the walk began must be on its pages, unless the token wrote while it walked.
 */
const contacts = [1, 2, 3, 4, 5].map((n) => contact(n));
const ids = contacts.map((c) => String(c.id));

/** The rules the judge found broken over these exchanges, and how many it judged against a rule. */
function judged(exchanges: ProxyExchange[], rule = 'contacts.list', settleMs = 0) {
  const judging = startJudging('documented', { settleMs });
  const broken = new Set<string>();
  for (const e of exchanges) {
    const outcome = judging.judge(e);
    if (outcome.kind === 'judged') for (const v of outcome.violations) broken.add(v.rule);
  }
  return { broken: [...broken], checks: judging.tallies().find((t) => t.rule.id === rule)!.checks };
}

const created = () =>
  contacts.map((c) =>
    exchange('POST', '/v1/contacts', 201, c, {
      sent: {
        username: String(c.username),
        phone_number: '+1 555 0100',
        display_name: String(c.display_name),
      },
    }),
  );

describe('the judge of whole walks', () => {
  it('finds a walk by the last id that leaves a contact out, and names the list (contacts.list)', () => {
    const before = created();
    // Newest first: the contact left out (the fourth) lies within what the walk showed.
    const walk = [
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange(
        'GET',
        `/v1/contacts?limit=2&starting_after=${ids[1]}`,
        200,
        page([contacts[2]!, contacts[4]!]),
      ),
    ];
    expect(judged([...before, ...walk])).toEqual({ broken: ['contacts.list'], checks: 1 });
  });

  it('names the paging (lists.pages) when a walk that lacks a record had a page with more to come that held fewer than its first', () => {
    const before = created();
    const walk = [
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[1]}`, 200, page([contacts[2]], true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[2]}`, 200, page([contacts[4]])),
    ];
    expect(judged([...before, ...walk], 'lists.pages').broken).toEqual(['lists.pages']);
  });

  it('takes a page as full as the most the server gives for any limit as full: a first page capped so that says has_more=false with records left out ended early (lists.has-more)', () => {
    const before = created();
    // limit=4 gave 3 and more to come: the server gives 3 at most.
    const capped = exchange('GET', '/v1/contacts?limit=4', 200, page(contacts.slice(0, 3), true));
    const whole = exchange('GET', '/v1/contacts?limit=10', 200, page(contacts.slice(0, 3)));
    expect(judged([...before, capped, whole], 'lists.has-more').broken).toEqual(['lists.has-more']);
  });

  it('names has_more when a walk ended on a page as full as the most the server gives, below the limit, that said has_more=false with records left out (lists.has-more)', () => {
    const before = created();
    // limit=3 gave 2 and more to come: the server gives 2 at most.
    const walk = [
      exchange('GET', '/v1/contacts?limit=3', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=3&starting_after=${ids[1]}`, 200, page(contacts.slice(2, 4))),
    ];
    expect(judged([...before, ...walk], 'lists.has-more').broken).toEqual(['lists.has-more']);
    // So does a page as full as the limit itself, whose walk went newest first and lacks only an
    // older record than it showed: more lay beyond it.
    const again = created();
    const full = [
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[1]}`, 200, page(contacts.slice(2, 4))),
    ];
    expect(judged([...again, ...full]).broken).toEqual(['lists.has-more']);
  });

  it('names the limit (lists.limit) when a walk that showed every record held fewer than its limit a page, with more to come, though one page of the same list held more', () => {
    const walkOfTwos = [
      exchange('GET', '/v1/contacts?limit=3', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=3&starting_after=${ids[1]}`, 200, page(contacts.slice(2, 4), true)),
      exchange('GET', `/v1/contacts?limit=3&starting_after=${ids[3]}`, 200, page([contacts[4]])),
    ];
    const shownWhole = exchange('GET', '/v1/contacts?limit=10', 200, page(contacts));
    expect(judged([...created(), shownWhole, ...walkOfTwos], 'lists.limit').broken).toEqual(['lists.limit']);
    // A server that gives two a page at most, to every limit: its maximum, no fault.
    const capped = exchange('GET', '/v1/contacts?limit=10', 200, page(contacts.slice(0, 2), true));
    expect(judged([...created(), capped, ...walkOfTwos], 'lists.limit').broken).toEqual([]);
  });

  it('keeps silent on the same walk when it shows them all, and counts it judged', () => {
    const before = created();
    const walk = [
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[1]}`, 200, page(contacts.slice(2, 4), true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[3]}`, 200, page([contacts[4]])),
    ];
    expect(judged([...before, ...walk])).toEqual({ broken: [], checks: 1 });
  });

  it('with --settle-ms, holds nothing against a walk that began less than that after a write of the token: the write may land mid-walk', () => {
    // Each exchange here takes a second: the delete ends a second before the walk begins.
    const walkAfterADelete = () => [
      ...created(),
      ...[1, 2, 3].map(() => exchange('GET', `/v1/contacts/${ids[0]}`, 200, contacts[0])),
      exchange('DELETE', `/v1/contacts/${ids[4]}`, 204),
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange(
        'GET',
        `/v1/contacts?limit=2&starting_after=${ids[1]}`,
        200,
        page([contacts[1]!, contacts[3]!]),
      ),
    ];
    // Judged all the same (it counts), and what the late delete explains is no fault.
    expect(judged(walkAfterADelete(), 'contacts.list', 3000)).toEqual({ broken: [], checks: 1 });
    expect(judged(walkAfterADelete(), 'lists.pages', 3000).broken).toEqual([]);
    // Begun longer than the window after it, the same walk shows a record twice (lists.pages), and
    // is judged no further: what it then leaves out is that fault's.
    expect(judged(walkAfterADelete(), 'contacts.list', 500)).toEqual({ broken: ['lists.pages'], checks: 0 });
  });

  it('does not judge a walk during which the token wrote: the list may have moved under it', () => {
    const before = created();
    const walk = [
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange(
        'PUT',
        `/v1/contacts/${ids[0]}`,
        200,
        { ...contacts[0], display_name: 'Moved' },
        { sent: { display_name: 'Moved' } },
      ),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[1]}`, 200, page([contacts[2]], true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[2]}`, 200, page([contacts[4]])),
    ];
    expect(judged([...before, ...walk])).toEqual({ broken: [], checks: 0 });
  });

  it('follows page=N and a Link header as well as the last id', () => {
    const before = created();
    const byNumber = [
      exchange('GET', '/v1/contacts?limit=3', 200, page(contacts.slice(0, 3), true)),
      exchange('GET', '/v1/contacts?limit=3&page=2', 200, page([contacts[3]])),
    ];
    expect(judged([...before, ...byNumber]).broken).toEqual(['contacts.list']);
    const again = created();
    const byLink = [
      exchange('GET', '/v1/contacts?limit=3', 200, page(contacts.slice(0, 3), true), {
        answerHeaders: { link: '<https://api.example.com/v1/contacts?cursor=abc&limit=3>; rel="next"' },
      }),
      exchange('GET', '/v1/contacts?limit=3&cursor=abc', 200, page(contacts.slice(3, 5))),
    ];
    expect(judged([...again, ...byLink])).toEqual({ broken: [], checks: 1 });
  });

  it('takes the first page again, with a record that showed late, for an ignored parameter, not a page that repeats records (lists.pages)', () => {
    const before = created();
    const first = exchange('GET', '/v1/contacts?limit=100', 200, page(contacts.slice(0, 4), true));
    const late = contact(9);
    const ignored = exchange(
      'GET',
      `/v1/contacts?limit=100&starting_after=${ids[3]}`,
      200,
      page([late, ...contacts.slice(0, 4)], true),
    );
    expect(judged([...before, first, ignored], 'lists.pages').broken).toEqual([]);
    // A page that repeats some of the page before is a next page that shows records twice.
    const again = created();
    const twice = exchange(
      'GET',
      `/v1/contacts?limit=100&starting_after=${ids[3]}`,
      200,
      page([contacts[3], contacts[4]]),
    );
    expect(judged([...again, first, twice], 'lists.pages').broken).toEqual(['lists.pages']);
  });

  it('follows a walk longer than it keeps whole, by the records the session knew before it began', () => {
    const before = created();
    const theirs = (from: number) => Array.from({ length: 1000 }, (_, i) => contact(100 + from + i));
    const walk = [
      exchange(
        'GET',
        '/v1/contacts?limit=1000',
        200,
        page([...contacts.slice(0, 2), ...theirs(0)].slice(0, 1000), true),
      ),
      exchange('GET', '/v1/contacts?limit=1000&page=2', 200, page(theirs(1000), true)),
      exchange('GET', '/v1/contacts?limit=1000&page=3', 200, page(theirs(2000), true)),
      exchange('GET', '/v1/contacts?limit=1000&page=4', 200, page([contacts[2]!, contacts[4]!])),
    ];
    expect(judged([...before, ...walk])).toEqual({ broken: ['contacts.list'], checks: 1 });
  });

  it('names the paging (lists.pages) when the list shown whole on one page, with no write since, held what the walk left out', () => {
    const before = created();
    const walk = [
      exchange('GET', '/v1/contacts?limit=100', 200, page(contacts)),
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[1]}`, 200, page([contacts[3], contacts[4]])),
    ];
    expect(judged([...before, ...walk], 'lists.pages').broken).toEqual(['lists.pages']);
  });

  it('names has_more (lists.has-more) when the walk showed the first records of the whole list in its order and ended before the rest', () => {
    const before = created();
    const walk = [
      exchange('GET', '/v1/contacts?limit=100', 200, page(contacts)),
      exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[1]}`, 200, page(contacts.slice(2, 4))),
    ];
    expect(judged([...before, ...walk], 'lists.has-more').broken).toEqual(['lists.has-more']);
  });
});

describe('the judge of pages asked for backwards (ending_before)', () => {
  const forward = () => [
    exchange('GET', '/v1/contacts?limit=2', 200, page(contacts.slice(0, 2), true)),
    exchange('GET', `/v1/contacts?limit=2&starting_after=${ids[1]}`, 200, page(contacts.slice(2, 4), true)),
  ];
  const back = (shown: typeof contacts, before = ids[2]) =>
    exchange('GET', `/v1/contacts?limit=2&ending_before=${before}`, 200, page(shown, true));

  it('finds a page before a record that leaves out the record just before it (lists.pages)', () => {
    const before = created();
    expect(judged([...before, ...forward(), back([contacts[0]!])], 'lists.pages').broken).toEqual([
      'lists.pages',
    ]);
  });

  it('keeps silent on the records just before it, and on the first page again (the parameter ignored)', () => {
    const before = created();
    expect(judged([...before, ...forward(), back(contacts.slice(0, 2))], 'lists.pages').broken).toEqual([]);
    const again = created();
    const far = back(contacts.slice(0, 2), ids[3]);
    expect(judged([...again, ...forward(), far], 'lists.pages').broken).toEqual([]);
    // Before the list's first record, a server that ignores the parameter shows the first page too.
    const top = created();
    const first = back(contacts.slice(0, 2), ids[0]);
    expect(judged([...top, ...forward(), first], 'lists.pages').broken).toEqual([]);
  });

  it('takes the page size the server gives, when it caps limit below what was asked (its maximum is not shown)', () => {
    // limit=3 asked, pages of 2 given.
    const capped = () => [
      exchange('GET', '/v1/contacts?limit=3', 200, page(contacts.slice(0, 2), true)),
      exchange('GET', `/v1/contacts?limit=3&starting_after=${ids[1]}`, 200, page(contacts.slice(2, 4), true)),
    ];
    const backOf = (shown: typeof contacts, before: string) =>
      exchange('GET', `/v1/contacts?limit=3&ending_before=${before}`, 200, page(shown, true));
    // The two just before, and the first page again (the parameter ignored): silent.
    expect(
      judged([...created(), ...capped(), backOf(contacts.slice(1, 3), ids[3]!)], 'lists.pages').broken,
    ).toEqual([]);
    expect(
      judged([...created(), ...capped(), backOf(contacts.slice(0, 2), ids[3]!)], 'lists.pages').broken,
    ).toEqual([]);
    // More than the limit asked for is the limit's fault (lists.limit), not the paging's.
    expect(
      judged([...created(), ...capped(), backOf(contacts.slice(1, 5), ids[3]!)], 'lists.pages').broken,
    ).toEqual(['lists.limit']);
    // One record that is not the one just before: broken.
    expect(
      judged([...created(), ...capped(), backOf([contacts[0]!], ids[3]!)], 'lists.pages').broken,
    ).toEqual(['lists.pages']);
  });
});

describe('the judge of a choice of active beside another parameter', () => {
  /** The rules broken when the contacts that active=true chose (the first two) are shown whole, then `after` follows. */
  function broken(after: () => ProxyExchange[], soleWriter = true) {
    const judging = startJudging('documented', { soleWriter });
    const rules = new Set<string>();
    // Made in this order: each exchange takes a second of the clock.
    const before = [
      ...created(),
      exchange('GET', '/v1/contacts?active=true', 200, page(contacts.slice(0, 2))),
    ];
    for (const e of [...before, ...after()]) {
      const outcome = judging.judge(e);
      if (outcome.kind === 'judged') for (const v of outcome.violations) rules.add(v.rule);
    }
    return [...rules];
  }
  const limited = (shown: number[]) =>
    exchange(
      'GET',
      '/v1/contacts?active=true&limit=2',
      200,
      page(
        shown.map((i) => contacts[i]!),
        true,
      ),
    );

  it('fails lists.limit for a page with limit that holds a contact the choice shown whole did not, with no write between', () => {
    expect(broken(() => [limited([2, 3])])).toEqual(['lists.limit']);
    expect(broken(() => [limited([0, 1])])).toEqual([]);
  });

  it('holds nothing against a page with limit when the choice was shown whole by a page as full as a page gets (its has_more=false may end it early)', () => {
    const judging = startJudging('documented', { soleWriter: true });
    const rules = new Set<string>();
    const full = exchange('GET', '/v1/contacts?active=true&limit=2', 200, page(contacts.slice(0, 2)));
    for (const e of [...created(), full, limited([2, 3])]) {
      const outcome = judging.judge(e);
      if (outcome.kind === 'judged') for (const v of outcome.violations) rules.add(v.rule);
    }
    expect([...rules]).not.toContain('lists.limit');
  });

  it('fails lists.has-more for a full first page with limit that says has_more=false, while the choice shown whole held more', () => {
    const last = exchange('GET', '/v1/contacts?active=true&limit=1', 200, page([contacts[0]!]));
    expect(broken(() => [last])).toEqual(['lists.has-more']);
  });

  it('holds nothing against it after a write, long after (activity may expire), or with another writer of the token', () => {
    const renamed = { ...contacts[4], display_name: 'x' };
    const write = () =>
      exchange('PUT', `/v1/contacts/${ids[4]}`, 200, renamed, { sent: { display_name: 'x' } });
    expect(broken(() => [write(), limited([2, 3])])).toEqual([]);
    const reads = () =>
      Array.from({ length: 11 }, () => exchange('GET', `/v1/contacts/${ids[0]}`, 200, contacts[0]));
    expect(broken(() => [...reads(), limited([2, 3])])).toEqual([]);
    expect(broken(() => [limited([2, 3])], false)).toEqual([]);
  });
});

describe('a rule the judge judges, that no exchange of the run could have broken', () => {
  const verdict = (rule: string, outcome: RuleVerdict['verdict']): RuleVerdict => ({
    rule: findRule(rule)!,
    verdict: outcome,
    tests: [],
  });
  const tally = (rule: string, checks: number) => ({
    rule: findRule(rule)!,
    checks,
    violations: 0,
    first: [],
  });

  it('is not run, though its tests passed; judged once, it passes', () => {
    const [unreached, reached, failed] = withTheJudge(
      [
        verdict('messages.list.all-conversations', 'pass'),
        verdict('contacts.list', 'pass'),
        verdict('lists.pages', 'fail'),
      ],
      [tally('messages.list.all-conversations', 0), tally('contacts.list', 3), tally('lists.pages', 0)],
    );
    expect(unreached).toMatchObject({ verdict: 'not-run', judge: { exchanges: 0 } });
    expect(unreached!.reason).toMatch(/no exchange of the run could have broken it/);
    expect(reached).toMatchObject({ verdict: 'pass', judge: { exchanges: 3 } });
    expect(failed).toMatchObject({ verdict: 'fail' });
  });
});

describe('what the judge alone saw, beside what the tests found', () => {
  const failed = (rule: string, foundBy: string): RuleVerdict => ({
    rule: findRule(rule)!,
    verdict: 'fail',
    reason: 'a fault',
    foundBy,
    tests: [],
  });

  it('is not run where the tests found another rule broken, but for a rule the judge alone decides', () => {
    expect(findRule('contacts.fields')!.decidedByJudge).toBe(true);
    expect(findRule('mock.limit-bounds')!.decidedByJudge).toBeUndefined();
    const [byTests, judgedToo, decided] = besideTheTests([
      failed('mock.error-body', 'a test of mock.error-body'),
      failed('mock.limit-bounds', JUDGE_TITLE),
      failed('contacts.fields', JUDGE_TITLE),
    ]);
    expect(byTests!.verdict).toBe('fail');
    expect(judgedToo!.verdict).toBe('not-run');
    expect(decided).toMatchObject({ verdict: 'fail', foundBy: JUDGE_TITLE });
    // With no failure from the tests, every rule fails on what the judge saw.
    expect(besideTheTests([failed('mock.limit-bounds', JUDGE_TITLE)])[0]!.verdict).toBe('fail');
  });

  it('is not run, for what only a script saw of a rule the judge decides, where the judge found a rule broken: it may be that fault', () => {
    // A list that shows a message's created_at wrong: the judge charges the list, the script that
    // read the list after an update charged the update.
    const [list, update] = besideTheTests([
      failed('messages.list.all-conversations', JUDGE_TITLE),
      failed('messages.update.keeps-the-rest', 'a test of messages.update.keeps-the-rest'),
    ]);
    expect(list).toMatchObject({ verdict: 'fail', foundBy: JUDGE_TITLE });
    expect(update!.verdict).toBe('not-run');
    expect(update!.reason).toMatch(
      /^not judged apart from messages\.list\.all-conversations, which the judge of every exchange found broken: a fault; it may be the same fault$/,
    );
    // With no failure from the judge, what a script alone saw fails its rule: a gap of the judge.
    const [alone] = besideTheTests([failed('messages.update.keeps-the-rest', 'a test')]);
    expect(alone!.verdict).toBe('fail');
  });

  it("fails a rule the judge decides on the judge's finding, and on a script's alone as the judge's gap", () => {
    const rule = findRule('messages.update.edit-text')!;
    expect(rule.decidedByJudge).toBe(true);
    const own = `[${rule.id}] an edit`;
    const record = (test: string, reason: string) =>
      ({ kind: 'verdict', rule: rule.id, test, verdict: 'fail', reason }) as const;
    const outcomes = [{ title: own, status: 'failed', failure: 'the model saw a fault' }];
    const both = verdictOf(
      rule,
      outcomes,
      [record(own, 'by the model'), record(JUDGE_TITLE, 'by the judge')],
      [],
    );
    expect(both).toMatchObject({ verdict: 'fail', reason: 'by the judge', foundBy: JUDGE_TITLE });
    const scriptOnly = verdictOf(rule, outcomes, [record(own, 'by the model')], []);
    expect(scriptOnly).toMatchObject({ verdict: 'fail', reason: `${JUDGE_MISSED}by the model` });
    // Of a rule the judge does not decide alone, the test's own failure comes first, as it says.
    const list = findRule('mock.limit-bounds')!;
    const listed = verdictOf(
      list,
      [{ title: '[mock.limit-bounds] a list', status: 'failed', failure: '' }],
      [
        { ...record('[mock.limit-bounds] a list', 'by the model'), rule: list.id },
        { ...record(JUDGE_TITLE, 'by the judge'), rule: list.id },
      ],
      [],
    );
    expect(listed).toMatchObject({ verdict: 'fail', reason: 'by the model' });
  });
});

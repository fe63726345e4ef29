import { AUTH, contact, exchange, message, now, page } from './exchanges';
import { read, redact, type ProxyExchange } from '../../contract-tests/http/exchange';
import { judge } from '../../contract-tests/judge/documented';
import { Verdicts } from '../../contract-tests/judge/verdicts';
import { learn, newSession, type SessionState } from '../../contract-tests/judge/session';
import { findRule, type RuleSet } from '../../contract-tests/rules/rules';
import { MADE_UP_IDS, recordPath } from '../../contract-tests/rules/resources';

/**
 * The proxy's judge on exchanges made by hand: a pure function of the exchange and what the
 * session learnt before it, so each check can be shown to fail, and to stay silent, directly.
 */
/** Judges each exchange in turn, learning from it as the proxy does; the rules broken by the last. */
function broken(
  exchanges: ProxyExchange[],
  ruleSet: RuleSet = 'documented',
  state: SessionState = newSession(),
  settleMs = 0,
) {
  let last: string[] = [];
  for (const e of exchanges) {
    const reading = read(e);
    last = judge(reading, state, ruleSet, settleMs).violations.map((v) => v.rule);
    learn(state, reading);
  }
  return last;
}

/** A session that has judged and learnt these exchanges. */
function sessionAfter(...exchanges: ProxyExchange[]): SessionState {
  const state = newSession();
  broken(exchanges, 'documented', state);
  return state;
}

/** A session that has seen the contact answered. */
const newSessionWith = (c: Record<string, unknown>): SessionState =>
  sessionAfter(exchange('GET', `/v1/contacts/${String(c.id)}`, 200, c));

describe('the proxy judge', () => {
  it('finds a page of eleven without limit too large: a check can fail (lists.default-page-size)', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => contact(i + 1));
    const state = newSession();
    const judgement = judge(
      read(exchange('GET', '/v1/contacts', 200, page(eleven, true))),
      state,
      'documented',
    );
    expect(judgement.violations).toEqual([
      {
        rule: 'lists.default-page-size',
        section: findRule('lists.default-page-size')!.section,
        message: 'without limit, the page holds 11 items, more than 10',
        exchange: expect.objectContaining({
          method: 'GET',
          url: '/v1/contacts',
          status: 200,
          authorization: 'Bearer secr…',
        }),
      },
    ]);
    expect(judgement.checked).toEqual(
      expect.arrayContaining(['lists.default-page-size', 'lists.page-fields', 'contacts.fields']),
    );
  });

  it('passes a page of ten, and a page of eleven asked for with limit=11', () => {
    const ten = Array.from({ length: 10 }, (_, i) => contact(i + 1));
    expect(broken([exchange('GET', '/v1/contacts', 200, page(ten, true))])).toEqual([]);
    const eleven = Array.from({ length: 11 }, (_, i) => contact(i + 1));
    expect(broken([exchange('GET', '/v1/contacts?limit=11', 200, page(eleven, true))])).toEqual([]);
    expect(broken([exchange('GET', '/v1/contacts?limit=3', 200, page(ten, true))])).toEqual(['lists.limit']);
  });

  it('holds a message’s contact to the contact its conversation belongs to, field by field, while that contact’s answers agree (messages.contact-is-sender)', () => {
    const c = contact(5);
    const at = `/v1/messages/${String(message(9).id)}`;
    const inConversation = (sender: Record<string, unknown>) =>
      message(9, 5, { conversation_id: c.conversation_id, contact: sender });
    const seen = () => newSessionWith(c);
    const own = { ...(message(9, 5).contact as Record<string, unknown>), created_at: c.created_at };
    expect(broken([exchange('GET', at, 200, inConversation(own))], 'documented', seen())).toEqual([]);
    for (const [field, value] of [
      ['username', 'someone_else'],
      ['phone_number', '+1 555 0199'],
      ['avatar_url', 'https://example.com/other.png'],
      ['created_at', Number(c.created_at) - 60],
    ] as const)
      expect(
        broken([exchange('GET', at, 200, inConversation({ ...own, [field]: value }))], 'documented', seen()),
      ).toEqual(['messages.contact-is-sender']);
    // A contact whose answers disagreed on a field that never changes is judged there; its
    // messages' contact is then judged by its id only.
    const moved = seen();
    expect(
      broken(
        [exchange('GET', `/v1/contacts/${String(c.id)}`, 200, { ...c, username: 'renamed' })],
        'documented',
        moved,
      ),
    ).toEqual(['contacts.retrieve']);
    expect(
      broken(
        [exchange('GET', at, 200, inConversation({ ...own, username: 'renamed' }))],
        'documented',
        moved,
      ),
    ).toEqual([]);
  });

  it('counts only a message with reactions among the answers judged against their shape', () => {
    const checked = (reactions: unknown[]) =>
      judge(
        read(exchange('GET', `/v1/messages/${String(message(4).id)}`, 200, message(4, 1, { reactions }))),
        newSession(),
        'documented',
      ).checked;
    expect(checked([])).not.toContain('messages.reactions-shape');
    expect(checked([{ heart: ['user1'] }])).toContain('messages.reactions-shape');
  });

  it('reads the fields of records and pages (contacts.fields, messages.contact-fields, lists.page-fields)', () => {
    expect(
      broken([exchange('GET', '/v1/contacts/C000000000000001', 200, { ...contact(1), username: 7 })]),
    ).toEqual(['contacts.fields']);
    const withName = message(1);
    (withName.contact as Record<string, unknown>).display_name = 'Shown';
    expect(broken([exchange('GET', `/v1/messages/${withName.id}`, 200, withName)])).toEqual([
      'messages.contact-fields',
    ]);
    expect(broken([exchange('GET', '/v1/messages', 200, { data: [] })])).toEqual(['lists.page-fields']);
    expect(
      broken([exchange('GET', `/v1/messages/${message(2).id}`, 200, message(2, 1, { created_at: 1.5 }))]),
    ).toEqual(['api.integer-timestamps']);
  });

  it('compares a create with what it sent (defaults, nulls, required parameters)', () => {
    const sent = { username: 'ada', phone_number: '+1 555 0100' };
    const made = { ...contact(1), username: 'ada', display_name: 'ada' };
    expect(broken([exchange('POST', '/v1/contacts', 201, made, { sent })])).toEqual([]);
    expect(
      broken([exchange('POST', '/v1/contacts', 201, { ...made, display_name: null }, { sent })]),
    ).toEqual(['contacts.create.display-name-defaults-to-username']);
    expect(
      broken([exchange('POST', '/v1/contacts', 201, { ...made, last_active_at: now() }, { sent })]),
    ).toEqual(['contacts.create.last-active-at-null']);
    expect(broken([exchange('POST', '/v1/contacts', 201, made, { sent: { username: 'ada' } })])).toEqual([
      'contacts.create.requires-username-and-phone-number',
    ]);
    expect(
      broken([
        exchange('POST', '/v1/messages', 201, message(1, 1, { read_at: now() }), {
          sent: { conversation_id: contact(1).conversation_id, message: 'text 1' },
        }),
      ]),
    ).toEqual(['messages.send.new-message-defaults']);
  });

  it('fails a create or update whose answer lost a value sent, and accepts what loses nothing', () => {
    const sent = { username: 'ada', phone_number: '+15550100', avatar_url: 'https://example.com/a.png' };
    const made = { ...contact(1), ...sent, display_name: 'ada' };
    const create = (answer: unknown, body: Record<string, string> = sent) =>
      broken([exchange('POST', '/v1/contacts', 201, answer, { sent: body })]);
    expect(create(made)).toEqual([]);
    expect(create({ ...made, phone_number: '15550100' })).toEqual(['contacts.create']);
    expect(create({ ...made, avatar_url: '' })).toEqual(['contacts.create']);
    // Phone punctuation, trimmed ends and NFC lose nothing.
    expect(create({ ...made, phone_number: '+1 555-0100' })).toEqual([]);
    const named = { ...sent, display_name: ' Zoe\u0301 ' };
    expect(create({ ...made, display_name: 'Zo\u00e9' }, named)).toEqual([]);
    expect(create({ ...made, display_name: 'Zo' }, named)).toEqual(['contacts.create']);
    const long = 'x'.repeat(300);
    const m = message(1);
    const send = { conversation_id: contact(1).conversation_id, message: long };
    expect(broken([exchange('POST', '/v1/messages', 201, { ...m, message: long }, { sent: send })])).toEqual(
      [],
    );
    expect(
      broken([exchange('POST', '/v1/messages', 201, { ...m, message: long.slice(0, 200) }, { sent: send })]),
    ).toEqual(['messages.send']);
    expect(
      broken([
        exchange(
          'PUT',
          `/v1/messages/${m.id}`,
          200,
          { ...m, message: 'edite', updated_at: now() },
          {
            sent: { message: 'edited' },
          },
        ),
      ]),
    ).toEqual(['messages.update.edit-text']);
    const c = contact(2);
    expect(
      broken([
        exchange(
          'PUT',
          `/v1/contacts/${c.id}`,
          200,
          { ...c, display_name: 'Ann' },
          { sent: { display_name: 'Anna' } },
        ),
      ]),
    ).toEqual(['contacts.update.display-name']);
  });

  it('fails an update that changes an attribute no update may change, to the value sent or to one of its own', () => {
    const c = contact(1);
    const update = (sent: string, answered: string) => {
      const state = newSessionWith(c);
      return broken(
        [
          exchange(
            'PUT',
            `/v1/contacts/${c.id}`,
            200,
            { ...c, username: answered },
            { sent: { username: sent } },
          ),
        ],
        'documented',
        state,
      );
    };
    expect(update('zed', 'zed')).toEqual(['contacts.update.only-display-name']);
    expect(update('zed', 'zed_1')).toEqual(['contacts.update.only-display-name']);
    // Ignored: the username stays what it was.
    expect(update('zed', String(c.username))).toEqual([]);
  });

  it('counts an update that sent a reaction as judged for adding it only where the answer shows reactions it can read', () => {
    const m = message(1);
    const checked = (reactions: unknown) => {
      const state = sessionAfter(exchange('GET', `/v1/messages/${m.id}`, 200, m));
      return judge(
        read(
          exchange(
            'PUT',
            `/v1/messages/${m.id}`,
            200,
            { ...m, reactions },
            { sent: { 'reactions[heart][]': 'bob' } },
          ),
        ),
        state,
        'documented',
      ).checked;
    };
    expect(checked([{ heart: ['bob'] }])).toContain('messages.update.add-reaction');
    expect(checked('heart:bob')).not.toContain('messages.update.add-reaction');
  });

  it('charges a field moved in the first view after an update to the update (keeps-the-rest), in a later view to the view', () => {
    const c = contact(1);
    const m = message(1);
    const moved = { ...c, display_name: 'Ann', phone_number: '+44 20 7946 0000' };
    const afterUpdate = (...views: ProxyExchange[]) => {
      const state = sessionAfter(
        // Two views: the second shows what never changes as the first did.
        exchange('GET', `/v1/contacts/${c.id}`, 200, c),
        exchange('GET', `/v1/contacts/${c.id}`, 200, c),
        exchange(
          'PUT',
          `/v1/contacts/${c.id}`,
          200,
          { ...c, display_name: 'Ann' },
          { sent: { display_name: 'Ann' } },
        ),
      );
      return broken(views, 'documented', state);
    };
    expect(afterUpdate(exchange('GET', `/v1/contacts/${c.id}`, 200, moved))).toEqual([
      'contacts.update.keeps-the-rest',
    ]);
    expect(
      afterUpdate(
        exchange('GET', `/v1/contacts/${c.id}`, 200, { ...c, display_name: 'Ann' }),
        exchange('GET', `/v1/contacts/${c.id}`, 200, moved),
      ),
    ).toEqual(['contacts.retrieve']);
    // The same of a message: its created_at, which no update changes.
    const state = sessionAfter(
      exchange('GET', `/v1/messages/${m.id}`, 200, m),
      exchange('GET', `/v1/messages/${m.id}`, 200, m),
      exchange(
        'PUT',
        `/v1/messages/${m.id}`,
        200,
        { ...m, message: 'edited', updated_at: now() },
        { sent: { message: 'edited' } },
      ),
    );
    expect(
      broken(
        [
          exchange('GET', `/v1/messages/${m.id}`, 200, {
            ...m,
            message: 'edited',
            updated_at: now(),
            created_at: 7,
          }),
        ],
        'documented',
        state,
      ),
    ).toEqual(['messages.update.keeps-the-rest']);
  });

  it('fails a refusal for leaving out an optional parameter, and not one about a value sent', () => {
    const state = newSession();
    const c = contact(1);
    const m = message(1);
    broken(
      [exchange('GET', `/v1/contacts/${c.id}`, 200, c), exchange('GET', `/v1/messages/${m.id}`, 200, m)],
      'documented',
      state,
    );
    const refusal = (message: string) => ({ error: { message } });
    expect(
      broken(
        [exchange('PUT', `/v1/contacts/${c.id}`, 400, refusal('display_name is required'), { sent: {} })],
        'documented',
        state,
      ),
    ).toEqual(['contacts.update.display-name']);
    expect(
      broken(
        [
          exchange('PUT', `/v1/messages/${m.id}`, 422, refusal('message: field required'), {
            sent: { 'reactions[heart][]': 'bob' },
          }),
        ],
        'documented',
        state,
      ),
    ).toEqual(['messages.update.add-reaction']);
    expect(
      broken(
        [
          exchange('POST', '/v1/contacts', 400, refusal('avatar_url must be given'), {
            sent: { username: 'a', phone_number: '+1' },
          }),
        ],
        'documented',
        state,
      ),
    ).toEqual(['contacts.create']);
    // The key `message` of an error body names no parameter: a refusal that names none is no fault.
    expect(
      broken(
        [
          exchange(
            'PUT',
            `/v1/messages/${m.id}`,
            400,
            { message: 'Nothing to change.', code: 'invalid' },
            {
              sent: {},
            },
          ),
        ],
        'documented',
        state,
      ),
    ).toEqual([]);
    // About a parameter that was sent (its value, or an unknown one): the server's right.
    expect(
      broken(
        [
          exchange(
            'PUT',
            `/v1/contacts/${c.id}`,
            400,
            refusal('Received unknown parameter: nick. This request accepts only: display_name.'),
            {
              sent: { nick: 'x' },
            },
          ),
        ],
        'documented',
        state,
      ),
    ).toEqual([]);
    expect(
      broken(
        [
          exchange(
            'PUT',
            `/v1/messages/${m.id}`,
            400,
            refusal('invalid reaction name; send message or reactions'),
            { sent: { 'reactions[Heart!][]': 'bob' } },
          ),
        ],
        'documented',
        state,
      ),
    ).toEqual([]);
    // A record the proxy does not know alive, or a refusal for another reason, says nothing.
    expect(
      broken(
        [exchange('PUT', '/v1/contacts/C999', 404, refusal('no contact; display_name'), { sent: {} })],
        'documented',
        state,
      ),
    ).toEqual([]);
    expect(
      broken(
        [exchange('PUT', `/v1/contacts/${c.id}`, 429, refusal('slow down, display_name'), { sent: {} })],
        'documented',
        state,
      ),
    ).toEqual([]);
  });

  it('waits --settle-ms for a list to show a write or a delete, and never for retrieve', () => {
    const [m1, m2] = [message(1), message(2)];
    const sequence = () => {
      const state = newSession();
      broken([exchange('GET', '/v1/messages', 200, page([m2, m1]))], 'documented', state);
      const deleted = exchange('DELETE', `/v1/messages/${m1.id}`, 204);
      return { state, deleted };
    };
    const { state: a, deleted: d1 } = sequence();
    // Asked for 1 s after the delete: still listed.
    const stale = () => exchange('GET', '/v1/messages', 200, page([m2, m1]));
    expect(broken([d1, stale()], 'documented', a)).toEqual(['messages.delete.permanent']);
    const { state: b, deleted: d2 } = sequence();
    expect(broken([d2, stale()], 'documented', b, 1500)).toEqual([]);
    const { state: c, deleted: d3 } = sequence();
    const later = stale();
    later.startedAt += 1000; // 2 s after the delete, past the window
    expect(broken([d3, later], 'documented', c, 1500)).toEqual(['messages.delete.permanent']);
    const { state: d, deleted: d4 } = sequence();
    expect(broken([d4, exchange('GET', `/v1/messages/${m1.id}`, 200, m1)], 'documented', d, 1500)).toEqual([
      'messages.delete.permanent',
    ]);
    // A record seen alive just before a list that lacks it: missing only past the window.
    const fresh = () => {
      const state = newSession();
      broken([exchange('GET', '/v1/messages', 200, page([m2, m1]))], 'documented', state);
      return state;
    };
    const lacking = (settleMs: number) => {
      const state = fresh(); // before the list is asked for
      return broken([exchange('GET', '/v1/messages', 200, page([m2]))], 'documented', state, settleMs);
    };
    expect(lacking(0)).toEqual(['messages.list.all-conversations']);
    expect(lacking(1500)).toEqual([]);
  });

  it('knows a deleted record from an earlier exchange (contacts.delete, messages.delete.permanent, the cascade)', () => {
    const state = newSession();
    const c = contact(1);
    const m = message(1);
    broken(
      [
        exchange('GET', '/v1/contacts', 200, page([c])),
        exchange('GET', '/v1/messages', 200, page([m, message(2)])),
      ],
      'documented',
      state,
    );
    expect(
      broken(
        [exchange('DELETE', `/v1/messages/${m.id}`, 204), exchange('GET', `/v1/messages/${m.id}`, 200, m)],
        'documented',
        state,
      ),
    ).toEqual(['messages.delete.permanent']);
    expect(
      broken(
        [
          exchange('DELETE', `/v1/contacts/${c.id}`, 204),
          exchange('GET', `/v1/messages?conversation_id=${c.conversation_id}`, 200, page([message(2)])),
        ],
        'documented',
        state,
      ),
    ).toEqual(['contacts.delete.cascades-conversation']);
    expect(broken([exchange('GET', `/v1/contacts/${c.id}`, 200, c)], 'documented', state)).toEqual([
      'contacts.delete',
    ]);
    // Refusals of the deleted records are what the rules ask for.
    expect(
      broken([exchange('GET', `/v1/contacts/${c.id}`, 404, { error: 'gone' })], 'documented', state),
    ).toEqual([]);
  });

  it('gives a cascade the settle window, but not in the mock rule set, whose messages go at once (mock.cascade-at-once)', () => {
    const c = contact(1);
    const m = message(1);
    const afterDelete = (ruleSet: RuleSet, settleMs: number) => {
      const state = newSession();
      broken(
        [exchange('GET', `/v1/contacts/${c.id}`, 200, c), exchange('GET', `/v1/messages/${m.id}`, 200, m)],
        ruleSet,
        state,
        settleMs,
      );
      broken([exchange('DELETE', `/v1/contacts/${c.id}`, 204)], ruleSet, state, settleMs);
      return broken([exchange('GET', `/v1/messages/${m.id}`, 200, m)], ruleSet, state, settleMs);
    };
    expect(afterDelete('documented', 3000)).toEqual([]);
    expect(afterDelete('mock', 3000)).toEqual(['mock.cascade-at-once']);
    expect(afterDelete('mock', 0).sort()).toEqual([
      'contacts.delete.cascades-conversation',
      'mock.cascade-at-once',
    ]);
  });

  it('holds no view to what was known of a record before an update taken with an answer that shows no record (api.json-objects alone)', () => {
    // The kit's session, the sole writer of the contact it made.
    const state = newSession(undefined, true);
    const c = contact(1);
    const sent = {
      username: String(c.username),
      phone_number: String(c.phone_number),
      display_name: String(c.display_name),
    };
    broken(
      [
        exchange('POST', '/v1/contacts', 201, c, { sent }),
        exchange('GET', `/v1/contacts/${String(c.id)}`, 200, c),
      ],
      'documented',
      state,
    );
    expect(
      broken(
        [exchange('PUT', `/v1/contacts/${String(c.id)}`, 204, undefined, { sent: { display_name: 'New' } })],
        'documented',
        state,
      ),
    ).toEqual(['api.json-objects']);
    expect(
      broken(
        [exchange('GET', '/v1/contacts', 200, page([{ ...c, display_name: 'New' }]))],
        'documented',
        state,
      ),
    ).toEqual([]);
  });

  it('holds a new record to an id of its own: none seen before it, alive or deleted (api.unique-ids)', () => {
    const state = newSession();
    const [c, other] = [contact(1), contact(2)];
    const sent = { username: 'ada', phone_number: '+1 555 0100' };
    const create = (answer: unknown) => exchange('POST', '/v1/contacts', 201, answer, { sent });
    broken([exchange('GET', '/v1/contacts', 200, page([c, other]))], 'documented', state);
    broken([exchange('DELETE', `/v1/contacts/${c.id}`, 204)], 'documented', state);
    const made = (id: unknown) => ({
      ...contact(3),
      ...sent,
      display_name: 'ada',
      id,
      conversation_id: `conv-${String(id)}`,
    });
    const reused = made(c.id);
    expect(broken([create(reused)], 'documented', state)).toEqual(['api.unique-ids']);
    // The id names the new record now: its views are none of the deleted one's (contacts.delete).
    expect(broken([exchange('GET', `/v1/contacts/${c.id}`, 200, reused)], 'documented', state)).toEqual([]);
    expect(broken([create(made(other.id))], 'documented', state)).toEqual(['api.unique-ids']);
    expect(broken([create(made('C999'))], 'documented', state)).toEqual([]);
    // A list answered while the create was on its way may show the new record first.
    const early = newSession();
    const slow = create(made('C777'));
    broken(
      [{ ...exchange('GET', '/v1/contacts', 200, page([made('C777')])), startedAt: slow.startedAt + 1 }],
      'documented',
      early,
    );
    expect(broken([slow], 'documented', early)).toEqual([]);
    // Two creates on their way at once, answered with one id: the second shows another record
    // under the id the first made (another username), so one of them was not made. Two creates of
    // the same content may be taken as one.
    const atOnce = (second: Record<string, string>) => {
      const first = create(made('C555'));
      const other = exchange('POST', '/v1/contacts', 201, { ...made('C555'), ...second }, { sent: second });
      return broken(
        [first, { ...other, startedAt: first.startedAt + 1, finishedAt: first.finishedAt + 50 }],
        'documented',
        newSession(),
      );
    };
    expect(atOnce({ username: 'bea', phone_number: '+1 555 0100', display_name: 'bea' })).toEqual([
      'api.unique-ids',
    ]);
    expect(atOnce(sent)).toEqual([]);
  });

  it('holds an update that changed a message to a time in updated_at, not null (messages.update.updated-at)', () => {
    const state = newSession();
    const m = message(1);
    const c = contact(1);
    broken(
      [exchange('GET', `/v1/contacts/${c.id}`, 200, c), exchange('GET', `/v1/messages/${m.id}`, 200, m)],
      'documented',
      state,
    );
    const heart = { 'reactions[heart][]': 'bob' };
    const reacted = { ...m, reactions: [{ heart: ['bob'] }] };
    const put = (answer: unknown, sent: Record<string, string>) =>
      exchange('PUT', `/v1/messages/${m.id}`, 200, answer, { sent });
    expect(broken([put(reacted, heart)], 'documented', state)).toEqual(['messages.update.updated-at']);
    // The same reaction again changes nothing: updated_at may stay as it was.
    expect(broken([put(reacted, heart)], 'documented', state)).toEqual([]);
    expect(
      broken(
        [put({ ...reacted, message: 'new text', updated_at: now() }, { message: 'new text' })],
        'documented',
        state,
      ),
    ).toEqual([]);
    // Nor, at its first update, a time before the message was made.
    const fresh = newSession();
    broken(
      [exchange('GET', `/v1/contacts/${c.id}`, 200, c), exchange('GET', `/v1/messages/${m.id}`, 200, m)],
      'documented',
      fresh,
    );
    const before = Number(m.created_at) - 1;
    expect(
      broken(
        [put({ ...m, message: 'newer text', updated_at: before }, { message: 'newer text' })],
        'documented',
        fresh,
      ),
    ).toEqual(['messages.update.updated-at']);
  });

  it("charges a reaction's user gone where another's adding stands under its name to adding, not to keeping the rest", () => {
    const setUp = () => {
      const state = newSession();
      const m = message(1, 1, { reactions: [{ heart: ['ann'] }], updated_at: now() });
      broken([exchange('GET', `/v1/contacts/${contact(1).id}`, 200, contact(1))], 'documented', state);
      broken([exchange('GET', `/v1/messages/${m.id}`, 200, m)], 'documented', state);
      const thumbs = (reactions: unknown[]) =>
        exchange(
          'PUT',
          `/v1/messages/${m.id}`,
          200,
          { ...m, reactions, updated_at: now() },
          {
            sent: { 'reactions[thumbs_up][]': 'bob' },
          },
        );
      return (reactions: unknown[]) => broken([thumbs(reactions)], 'documented', state);
    };
    // ann's heart replaced by cid's, whom an update on its way at once added under heart.
    expect(setUp()([{ heart: ['cid'] }, { thumbs_up: ['bob'] }])).toEqual(['messages.update.add-reaction']);
    // The heart gone whole, or ann's alone, is this update's: it sent only thumbs_up.
    expect(setUp()([{ thumbs_up: ['bob'] }])).toEqual(['messages.update.keeps-the-rest']);
    expect(setUp()([{ heart: [] }, { thumbs_up: ['bob'] }])).toEqual(['messages.update.keeps-the-rest']);
    expect(setUp()([{ heart: ['ann', 'cid'] }, { thumbs_up: ['bob'] }])).toEqual([]);
  });

  it('holds a new contact to a conversation of its own: not one another contact, alive, holds (contacts.create.conversation-id)', () => {
    const state = newSession();
    const [c, gone] = [contact(1), contact(2)];
    const sent = { username: 'ada', phone_number: '+1 555 0100' };
    const create = (answer: unknown) => exchange('POST', '/v1/contacts', 201, answer, { sent });
    broken([exchange('GET', '/v1/contacts', 200, page([c, gone]))], 'documented', state);
    broken([exchange('DELETE', `/v1/contacts/${gone.id}`, 204)], 'documented', state);
    const made = (id: string, conversation: unknown) => ({
      ...contact(3),
      ...sent,
      display_name: 'ada',
      id,
      conversation_id: conversation,
    });
    expect(broken([create(made('C8', c.conversation_id))], 'documented', state)).toEqual([
      'contacts.create.conversation-id',
    ]);
    // The conversation of a deleted contact is no other contact's now.
    expect(broken([create(made('C9', gone.conversation_id))], 'documented', state)).toEqual([]);
  });

  it('holds an update without display_name to the name the contact had (contacts.update.keeps-the-rest)', () => {
    const state = newSession();
    const c = contact(1);
    broken([exchange('GET', `/v1/contacts/${c.id}`, 200, c)], 'documented', state);
    const update = (name: unknown) =>
      exchange(
        'PUT',
        `/v1/contacts/${c.id}`,
        200,
        { ...c, display_name: name },
        { sent: { avatar_url: 'x' } },
      );
    expect(broken([update(c.display_name)], 'documented', newSessionWith(c))).toEqual([]);
    expect(broken([update('Unnamed')], 'documented', state)).toEqual(['contacts.update.keeps-the-rest']);
  });

  it('takes a delete still on its way as the page was answered for one that may have been applied (the kit with several workers, a proxy with several clients)', () => {
    const [a, b] = [contact(1), contact(2)];
    const seen = () => {
      const state = newSession();
      broken([exchange('GET', '/v1/contacts', 200, page([a, b]))], 'documented', state);
      return state;
    };
    const rules = (pending: { method: string; url: string; authorization?: string }[]) => {
      const state = seen();
      const lacksB = read(exchange('GET', '/v1/contacts', 200, page([a])));
      return judge(lacksB, state, 'documented', 0, pending).violations.map((v) => v.rule);
    };
    expect(rules([])).toEqual(['contacts.list']);
    expect(rules([{ method: 'DELETE', url: `/v1/contacts/${String(b.id)}`, authorization: AUTH }])).toEqual(
      [],
    );
    // Another token's delete, or a write that deletes nothing, changes nothing of this list.
    expect(
      rules([{ method: 'DELETE', url: `/v1/contacts/${String(b.id)}`, authorization: 'Bearer other' }]),
    ).toEqual(['contacts.list']);
    expect(rules([{ method: 'PUT', url: `/v1/contacts/${String(b.id)}`, authorization: AUTH }])).toEqual([
      'contacts.list',
    ]);
  });

  it('counts as gone only what a request that started after the delete shows', () => {
    const state = newSession();
    const m = message(1);
    broken(
      [exchange('GET', `/v1/messages/${m.id}`, 200, m), exchange('DELETE', `/v1/messages/${m.id}`, 204)],
      'documented',
      state,
    );
    const early = exchange('GET', `/v1/messages/${m.id}`, 200, m);
    early.startedAt -= 2000; // on its way before the delete was answered
    expect(broken([early], 'documented', state)).toEqual([]);
  });

  it('takes out of the list the messages of a deleted contact whose conversation it never saw', () => {
    const state = newSession();
    const [m1, m2] = [message(1, 7), message(2, 7)];
    const seen = [exchange('GET', '/v1/messages', 200, page([m2, m1]))];
    // Seen alive, and left out of a first page that says it is the whole list: a check that can fail.
    expect(broken([...seen, exchange('GET', '/v1/messages', 200, page([m2]))])).toEqual([
      'messages.list.all-conversations',
    ]);
    expect(
      broken(
        [
          ...seen,
          exchange('DELETE', `/v1/contacts/${contact(7).id}`, 204),
          exchange('GET', '/v1/messages', 200, page([])),
        ],
        'documented',
        state,
      ),
    ).toEqual([]);
    // A contact it knows takes with it its own conversation's messages only: a list that lacks
    // another's after it may have lost it, or the delete may have taken it. The charge is held until
    // an answer tells: a retrieve that shows it alive says the list left it out (its own rule).
    const lacking = () => [
      exchange('GET', '/v1/contacts', 200, page([contact(8)])),
      exchange('GET', '/v1/messages', 200, page([message(3, 8), m2, m1])),
      exchange('DELETE', `/v1/contacts/${contact(8).id}`, 204),
      exchange('GET', '/v1/messages', 200, page([m2])),
    ];
    expect(broken(lacking())).toEqual([]);
    expect(broken([...lacking(), exchange('GET', `/v1/messages/${String(m1.id)}`, 200, m1)])).toEqual([
      'messages.list.all-conversations',
    ]);
  });

  it('counts a page as changed by a delete that ended while the page was on its way', () => {
    const state = newSession();
    const [m1, m2] = [message(1), message(2)];
    broken([exchange('GET', '/v1/messages', 200, page([m2, m1]))], 'documented', state);
    const deleted = exchange('DELETE', `/v1/messages/${m1.id}`, 204);
    // The page was asked for before the delete ended, and answered after it.
    const first = exchange('GET', '/v1/messages?limit=1', 200, page([m2], true));
    first.startedAt = deleted.startedAt - 500;
    const next = exchange('GET', `/v1/messages?limit=1&starting_after=${m2.id}`, 200, page([]));
    expect(broken([deleted, first, next], 'documented', state)).toEqual([]);
    // Asked for after the delete, a page that said has_more=true and an empty page after it disagree.
    expect(
      broken(
        [
          exchange('GET', '/v1/messages?limit=1', 200, page([m2], true)),
          exchange('GET', `/v1/messages?limit=1&starting_after=${m2.id}`, 200, page([])),
        ],
        'documented',
        state,
      ),
    ).toEqual(['lists.has-more']);
  });

  it('forgets a world that a write outside the API changed (the mock reset), and answers forced by Prefer', () => {
    const state = newSession();
    const c = contact(1);
    broken(
      [exchange('GET', `/v1/contacts/${c.id}`, 200, c), exchange('DELETE', `/v1/contacts/${c.id}`, 204)],
      'documented',
      state,
    );
    expect(
      broken(
        [exchange('POST', '/__mock/reset', 204), exchange('GET', `/v1/contacts/${c.id}`, 200, c)],
        'documented',
        state,
      ),
    ).toEqual([]);
    const forced = exchange(
      'GET',
      '/v1/contacts',
      200,
      { not: 'a page' },
      { headers: { prefer: 'code=503' } },
    );
    expect(broken([forced])).toEqual([]);
  });

  it('judges the conventions only in the mock rule set', () => {
    const created = exchange(
      'POST',
      '/v1/contacts',
      200,
      { ...contact(1), username: 'ada', display_name: 'ada' },
      {
        sent: { username: 'ada', phone_number: '+1 555 0100' },
      },
    );
    expect(broken([created], 'documented')).toEqual([]);
    expect(broken([created], 'mock')).toEqual(['mock.success-codes']);
    const error = exchange('GET', '/v1/contacts/x', 404, { error: { message: 'nested' } });
    expect(broken([error], 'documented')).toEqual([]);
    expect(broken([error], 'mock')).toEqual(['mock.error-body']);
    const judged = judge(
      read(exchange('GET', '/v1/contacts', 200, page([contact(1)]))),
      newSession(),
      'documented',
    );
    expect(judged.checked.filter((id) => id.startsWith('mock.'))).toEqual([]);
  });

  it('holds reactions to the order of first use, names and usernames, in the mock rule set (mock.reactions)', () => {
    const m = message(1, 1, { reactions: [{ wave: ['ann'] }] });
    const afterUpdate = (sent: Record<string, string>, reactions: unknown[], ruleSet: RuleSet = 'mock') => {
      const state = newSession();
      broken([exchange('GET', `/v1/messages/${m.id}`, 200, m)], ruleSet, state);
      const answer = { ...m, reactions, updated_at: now() + 1 };
      return broken([exchange('PUT', `/v1/messages/${m.id}`, 200, answer, { sent })], ruleSet, state);
    };
    const heart = { 'reactions[heart][]': 'bob' };
    const byCid = { 'reactions[wave][]': 'cid' };
    expect(afterUpdate(heart, [{ wave: ['ann'] }, { heart: ['bob'] }])).toEqual([]);
    expect(afterUpdate(heart, [{ heart: ['bob'] }, { wave: ['ann'] }])).toEqual(['mock.reactions']);
    expect(afterUpdate(heart, [{ heart: ['bob'] }, { wave: ['ann'] }], 'documented')).toEqual([]);
    expect(afterUpdate(byCid, [{ wave: ['ann', 'cid'] }])).toEqual([]);
    expect(afterUpdate(byCid, [{ wave: ['cid', 'ann'] }])).toEqual(['mock.reactions']);
  });

  it('tolerates one trailing slash on the API’s routes in the mock rule set (mock.routing)', () => {
    const error = (code: string) => ({ type: 'invalid_request', code, message: 'No such thing.' });
    expect(broken([exchange('GET', '/v1/contacts/', 200, page([]))], 'mock')).toEqual([]);
    expect(broken([exchange('GET', '/v1/contacts/', 404, error('route_not_found'))], 'mock')).toEqual([
      'mock.routing',
    ]);
    expect(broken([exchange('GET', '/v1/messages/?limit=2', 404, error('not_found'))], 'mock')).toEqual([
      'mock.routing',
    ]);
    expect(broken([exchange('GET', '/v1/contacts/', 404, error('route_not_found'))], 'documented')).toEqual(
      [],
    );
    // A record's route with the slash may name no record: not_found is its answer then.
    expect(broken([exchange('GET', '/v1/contacts/nobody/', 404, error('not_found'))], 'mock')).toEqual([]);
    expect(broken([exchange('GET', '/v1/contacts/nobody/', 404, error('route_not_found'))], 'mock')).toEqual([
      'mock.routing',
    ]);
  });

  it('holds every view to the value of a field that never changes as first shown, so that one view that moved it is the only one at fault', () => {
    const c = contact(1);
    const state = newSession();
    const late = { ...c, created_at: Number(c.created_at) + 1 };
    expect(broken([exchange('GET', `/v1/contacts/${String(c.id)}`, 200, c)], 'documented', state)).toEqual(
      [],
    );
    expect(broken([exchange('GET', `/v1/contacts/${String(c.id)}`, 200, late)], 'documented', state)).toEqual(
      ['contacts.retrieve'],
    );
    expect(broken([exchange('GET', '/v1/contacts', 200, page([c]))], 'documented', state)).toEqual([]);
    // A time first shown with a fraction gives way to the next view's (api.integer-timestamps judged it),
    // which no view is held against before.
    const m = message(1);
    const fraction = { ...m, created_at: Number(m.created_at) + 0.5 };
    const later = newSession();
    broken([exchange('GET', `/v1/messages/${String(m.id)}`, 200, fraction)], 'documented', later);
    expect(broken([exchange('GET', `/v1/messages/${String(m.id)}`, 200, m)], 'documented', later)).toEqual(
      [],
    );
    const moved = { ...m, created_at: Number(m.created_at) + 1 };
    expect(
      broken([exchange('GET', `/v1/messages/${String(m.id)}`, 200, moved)], 'documented', later),
    ).toEqual(['messages.retrieve']);
  });

  it('charges a list that shows a message with a field that never changes moved to the list that shows it', () => {
    const m = message(1);
    const state = newSession();
    broken([exchange('GET', `/v1/messages/${String(m.id)}`, 200, m)], 'documented', state);
    const moved = { ...m, created_at: Number(m.created_at) + 1 };
    const conversation = `/v1/messages?conversation_id=${String(m.conversation_id)}`;
    expect(broken([exchange('GET', conversation, 200, page([moved]))], 'documented', state)).toEqual([
      'messages.list.conversation-filter',
    ]);
    expect(broken([exchange('GET', '/v1/messages', 200, page([moved]))], 'documented', state)).toEqual([
      'messages.list.all-conversations',
    ]);
    // As it was: no list breaks anything.
    expect(broken([exchange('GET', '/v1/messages', 200, page([m]))], 'documented', state)).toEqual([]);
  });

  it('takes a cap on pages only from a page that held fewer than the limit it asked for: a page without limit shows none', () => {
    const all = Array.from({ length: 9 }, (_, i) => contact(i + 1));
    const state = newSession();
    // Seven without limit, and more to come: the server's default page size, not a cap on limits.
    broken([exchange('GET', '/v1/contacts', 200, page(all.slice(0, 7), true))], 'documented', state);
    for (const c of all.slice(7))
      broken([exchange('GET', `/v1/contacts/${String(c.id)}`, 200, c)], 'documented', state);
    // Seven of nine with limit=20, and none to come: the list left two out; the page was not full.
    expect(
      broken([exchange('GET', '/v1/contacts?limit=20', 200, page(all.slice(0, 7)))], 'documented', state),
    ).toEqual(['contacts.list']);
  });

  it("charges a view that moves a field that never changes after an update's answer showed it kept to the view, where no view of its kind showed it well before", () => {
    const c = contact(1);
    const state = newSession();
    broken([exchange('GET', '/v1/contacts', 200, page([c]))], 'documented', state);
    const renamed = { ...c, display_name: 'Renamed' };
    expect(
      broken(
        [
          exchange('PUT', `/v1/contacts/${String(c.id)}`, 200, renamed, {
            sent: { display_name: 'Renamed' },
          }),
        ],
        'documented',
        state,
      ),
    ).toEqual([]);
    const late = { ...renamed, created_at: Number(c.created_at) + 1 };
    expect(broken([exchange('GET', `/v1/contacts/${String(c.id)}`, 200, late)], 'documented', state)).toEqual(
      ['contacts.retrieve'],
    );
    // The same of a message, edited (seen in a list: no retrieve showed it well before).
    const m = message(1);
    broken([exchange('GET', '/v1/messages', 200, page([m]))], 'documented', state);
    const edited = { ...m, message: 'Edited', updated_at: now() + 1 };
    expect(
      broken(
        [exchange('PUT', `/v1/messages/${String(m.id)}`, 200, edited, { sent: { message: 'Edited' } })],
        'documented',
        state,
      ),
    ).toEqual([]);
    const moved = { ...edited, created_at: Number(m.created_at) + 1 };
    expect(
      broken([exchange('GET', `/v1/messages/${String(m.id)}`, 200, moved)], 'documented', state),
    ).toEqual(['messages.retrieve']);
    // An update taken whose answer moved it is the update's fault (keeps-the-rest), at that answer.
    const c2 = contact(2);
    broken([exchange('GET', '/v1/contacts', 200, page([c2]))], 'documented', state);
    const movedByUpdate = { ...c2, display_name: 'Other', created_at: Number(c2.created_at) + 1 };
    expect(
      broken(
        [
          exchange('PUT', `/v1/contacts/${String(c2.id)}`, 200, movedByUpdate, {
            sent: { display_name: 'Other' },
          }),
        ],
        'documented',
        state,
      ),
    ).toEqual(['contacts.update.keeps-the-rest']);
  });

  it('takes a write taken without a token as done to whichever world holds the record it named: its fault is api.auth-required alone', () => {
    const c = contact(1);
    const state = newSession(undefined, true);
    broken([exchange('GET', '/v1/contacts', 200, page([c]))], 'documented', state);
    const anonymous = exchange('DELETE', `/v1/contacts/${String(c.id)}`, 204);
    delete anonymous.requestHeaders.authorization;
    expect(broken([anonymous], 'documented', state)).toEqual(['api.auth-required']);
    expect(broken([exchange('GET', '/v1/contacts', 200, page([]))], 'documented', state)).toEqual([]);
  });

  it('charges what goes missing after a delete taken without a token to api.auth-required, though no world knew the record it named: it may have taken that one by another way', () => {
    const c = contact(1);
    const [m1, m2] = [message(1), message(2)];
    const conversation = String(c.conversation_id);
    const inConversation = () =>
      exchange('GET', `/v1/messages?conversation_id=${conversation}`, 200, page([m1, m2]));
    // Unknown to the token's world, a contact deleted without a token; then a message of the
    // token's own, in the same conversation, deleted: of the two, the first may have taken m2.
    const state = newSession(undefined, true);
    broken([inConversation()], 'documented', state);
    const anonymous = exchange('DELETE', '/v1/contacts/someone-else', 204);
    delete anonymous.requestHeaders.authorization;
    expect(broken([anonymous], 'documented', state)).toEqual(['api.auth-required']);
    const ownDelete = exchange('DELETE', `/v1/messages/${String(m1.id)}`, 204);
    const gone = exchange('GET', `/v1/messages/${String(m2.id)}`, 404, { error: 'not found' });
    expect(broken([ownDelete, gone], 'documented', state)).toEqual(['api.auth-required']);
    // Without it, the delete of the message took m2 (messages.delete.permanent).
    const alone = newSession(undefined, true);
    broken([inConversation()], 'documented', alone);
    expect(
      broken(
        [
          exchange('DELETE', `/v1/messages/${String(m1.id)}`, 204),
          exchange('GET', `/v1/messages/${String(m2.id)}`, 404, { error: 'not found' }),
        ],
        'documented',
        alone,
      ),
    ).toEqual(['messages.delete.permanent']);
  });

  it('charges a page chosen by active that lacks the fields of a page to the parameter (contacts.list.active-parameter) once the list without it answered pages, to lists.page-fields before', () => {
    const notAPage = () => exchange('GET', '/v1/contacts?active=true', 200, { contacts: [] });
    expect(broken([notAPage()])).toEqual(['lists.page-fields']);
    expect(broken([exchange('GET', '/v1/contacts', 200, page([contact(1)])), notAPage()])).toEqual([
      'contacts.list.active-parameter',
    ]);
  });

  it('asks for the Authorization header, and never shows the token whole', () => {
    const anonymous = exchange('GET', '/v1/contacts', 200, page([]));
    delete anonymous.requestHeaders.authorization;
    const [violation] = judge(read(anonymous), newSession(), 'documented').violations;
    expect(violation?.rule).toBe('api.auth-required');
    expect(violation?.exchange.authorization).toBe('no Authorization');
    expect(redact('Bearer secret-token-123')).toBe('Bearer secr…');
    // The scheme in any case is a well-formed header (mock rule set, C4); a token with ':' is not.
    const lower = exchange('GET', '/v1/contacts', 200, page([]), {
      headers: { authorization: 'bearer abc=' },
    });
    expect(broken([lower], 'mock')).toEqual([]);
    const colon = exchange('GET', '/v1/contacts', 200, page([]), {
      headers: { authorization: 'Bearer a:b' },
    });
    expect(broken([colon], 'mock')).toEqual(['mock.token-isolation']);
    expect(redact('weird')).toBe('weir…');
  });

  it('holds writes to form parameters: a form body refused with 415 or for its kind, or refused and then taken as JSON, breaks api.form-parameters', () => {
    const sent = { username: 'formuser', phone_number: '+1 555 0100' };
    const form = (status: number, answer: unknown) =>
      exchange('POST', '/v1/contacts', status, answer, { sent });
    expect(broken([form(415, { error: 'send JSON' })])).toEqual(['api.form-parameters']);
    const json = exchange('POST', '/v1/contacts', 201, contact(9, { ...sent, display_name: 'formuser' }), {
      headers: { 'content-type': 'application/json' },
    });
    json.requestBody = Buffer.from(JSON.stringify(sent));
    const state = newSession();
    broken([form(400, { error: 'bad request' })], 'documented', state);
    expect(broken([json], 'documented', state)).toEqual(['api.form-parameters']);
    // The same JSON write, with no form refused before it, is nothing to hold against the server.
    expect(broken([json])).toEqual([]);
    // A refusal that speaks of the body's kind refused the form; one that names a parameter sent
    // refused its value.
    expect(broken([form(400, { error: { message: 'the request body must be JSON' } })])).toEqual([
      'api.form-parameters',
    ]);
    expect(broken([form(422, { error: 'unsupported Content-Type' })])).toEqual(['api.form-parameters']);
    expect(broken([form(400, { error: 'phone_number must be a JSON string in E.164' })])).toEqual([]);
    expect(broken([form(400, { error: 'invalid phone number' })])).toEqual([]);
  });

  it('names only rules of the catalogue: a check of any other id is the judge’s own bug, and throws', () => {
    const verdicts = new Verdicts(read(exchange('GET', '/v1/contacts', 200, page([]))), 'mock');
    expect(() => verdicts.check('contacts.no-such-rule')).toThrow(
      'the judge names the rule "contacts.no-such-rule", which it does not list',
    );
    expect(() => verdicts.check('contacts.list')).not.toThrow();
  });

  describe('the /v1 prefix: a list asked for with nothing is served there', () => {
    const moved = (status: number, location: string) =>
      exchange('GET', '/v1/messages', status, undefined, { answerHeaders: { location } });
    it('charges a list not found under /v1 to the prefix (and to the list, which it refused)', () => {
      expect(broken([exchange('GET', '/v1/messages', 404, { error: 'Not Found' })])).toEqual([
        'messages.list.all-conversations',
        'api.v1-prefix',
      ]);
      expect(broken([exchange('GET', '/v1/contacts', 410, { error: 'Gone' })])).toContain('api.v1-prefix');
    });
    it('charges a redirect out of /v1 to the prefix alone, and not one that stays under it', () => {
      expect(broken([moved(301, '/v2/messages')])).toEqual(['api.v1-prefix']);
      expect(broken([moved(308, 'https://elsewhere.example/messages')])).toEqual(['api.v1-prefix']);
      expect(broken([moved(301, '/v1/messages/')])).toEqual([]);
      expect(broken([moved(302, '/api/v1/messages/')])).toEqual([]);
      expect(broken([moved(301, 'http://[not a url')])).toEqual([]);
    });
    it('judges no list with parameters, no record, and no gateway’s answer by it', () => {
      expect(broken([exchange('GET', '/v1/messages?conversation_id=zz', 404, { error: 'no such' })])).toEqual(
        [],
      );
      expect(broken([exchange('GET', '/v1/contacts/zz', 404, { error: 'no such' })])).toEqual([]);
      expect(broken([exchange('GET', '/v1/messages', 503, { error: 'busy' })])).toEqual([]);
      expect(broken([exchange('GET', '/v1/messages', 200, page([]))])).toEqual([]);
    });
  });

  describe('what a request is owed: its answer, or a refusal (a 4xx), never a 500', () => {
    it('charges a 500 to the rule of the operation, whatever was sent, and a gateway’s 502–504 to none', () => {
      const c = contact(1);
      expect(broken([exchange('GET', '/v1/contacts', 500, { error: 'boom' })])).toEqual(['contacts.list']);
      expect(broken([exchange('GET', '/v1/contacts?limit=3', 500)])).toEqual(['lists.limit']);
      expect(broken([exchange('GET', '/v1/messages?conversation_id=V1', 500)])).toEqual([
        'messages.list.conversation-filter',
      ]);
      expect(broken([exchange('GET', `/v1/contacts/${String(c.id)}`, 500)])).toEqual(['contacts.retrieve']);
      expect(
        broken([
          exchange('POST', '/v1/messages', 500, undefined, { sent: { conversation_id: 'V1', message: '✓' } }),
        ]),
      ).toEqual(['messages.send']);
      expect(
        broken([
          exchange('PUT', '/v1/messages/M1', 501, undefined, { sent: { 'reactions[0][name]': 'heart' } }),
        ]),
      ).toEqual(['messages.update.add-reaction']);
      expect(broken([exchange('DELETE', '/v1/messages/M1', 500)])).toEqual(['messages.delete.permanent']);
      for (const status of [502, 503, 504])
        expect(broken([exchange('GET', '/v1/contacts', status)])).toEqual([]);
      // Without a token, the answer owed is a refusal: not a redirect, not a 500.
      const anonymous = (status: number) =>
        broken([{ ...exchange('GET', '/v1/contacts', status), requestHeaders: {} }]);
      expect(anonymous(500)).toEqual(['api.auth-required']);
      expect(anonymous(302)).toEqual(['api.auth-required']);
      expect(anonymous(401)).toEqual([]);
      expect(anonymous(503)).toEqual([]);
    });

    it('charges the refusal of a list asked for with nothing it may refuse: nothing, a limit of 1 to 10, active alone', () => {
      expect(broken([exchange('GET', '/v1/contacts', 400)])).toEqual(['contacts.list']);
      expect(broken([exchange('GET', '/v1/messages', 422)])).toEqual(['messages.list.all-conversations']);
      expect(broken([exchange('GET', '/v1/contacts?limit=10', 400)])).toEqual(['lists.limit']);
      expect(broken([exchange('GET', '/v1/contacts?active=false', 400)])).toEqual([
        'contacts.list.active-parameter',
      ]);
      // A limit above ten may be above the largest the server takes (not shown); a parameter the
      // document does not name may be refused; a token, or the rate, may be refused anywhere.
      for (const url of [
        '/v1/contacts?limit=11',
        '/v1/contacts?limit=0',
        '/v1/contacts?sort=asc',
        '/v1/contacts?active=yes',
      ])
        expect(broken([exchange('GET', url, 400)])).toEqual([]);
      for (const status of [401, 403, 408, 429])
        expect(broken([exchange('GET', '/v1/contacts', status)])).toEqual([]);
      // `active` is no parameter of the messages' list: a 500 there is that list's, not the contacts'.
      expect(broken([exchange('GET', '/v1/messages?active=true', 400)])).toEqual([]);
      expect(broken([exchange('GET', '/v1/messages?active=true', 500)])).toEqual([
        'messages.list.all-conversations',
      ]);
    });

    it('charges the refusal of a list asked for with two parameters to the one the server refused alone too, the same value', () => {
      const pair = () => exchange('GET', '/v1/contacts?active=true&limit=2', 400);
      expect(broken([pair()])).toEqual(['lists.limit']);
      const alone = (url: string, status: number) => broken([exchange('GET', url, status), pair()]);
      expect(alone('/v1/contacts?active=true', 400)).toEqual(['contacts.list.active-parameter']);
      expect(alone('/v1/contacts?limit=2', 400)).toEqual(['lists.limit']);
      // Another value refused alone, or a refusal any request may get, says nothing of this one.
      expect(alone('/v1/contacts?active=false', 400)).toEqual(['lists.limit']);
      expect(alone('/v1/contacts?active=true', 429)).toEqual(['lists.limit']);
      expect(alone('/v1/messages?limit=2', 400)).toEqual(['lists.limit']);
    });

    it('charges the refusal of a retrieve or a delete of a record the run made and saw alive, only where it is the sole writer', () => {
      const c = contact(2);
      const sent = { username: String(c.username), phone_number: String(c.phone_number) };
      // The record is made before the request judged is sent (the clock moves with each exchange).
      const after = (state: SessionState, then: () => ProxyExchange) => {
        broken([exchange('POST', '/v1/contacts', 201, c, { sent })], 'documented', state);
        return broken([then()], 'documented', state);
      };
      const made = (then: () => ProxyExchange) => after(newSession(undefined, true), then);
      const at = `/v1/contacts/${String(c.id)}`;
      expect(made(() => exchange('GET', at, 400))).toEqual(['contacts.retrieve']);
      expect(made(() => exchange('DELETE', at, 409))).toEqual(['contacts.delete']);
      expect(
        made(() => exchange('GET', `/v1/messages?conversation_id=${String(c.conversation_id)}`, 400)),
      ).toEqual(['messages.list.conversation-filter']);
      // Once deleted, it may be refused in any way; a proxy, beside other clients, knows no record alive.
      const deleted = newSession(undefined, true);
      after(deleted, () => exchange('DELETE', at, 204));
      expect(broken([exchange('GET', at, 400)], 'documented', deleted)).toEqual([]);
      expect(after(newSession(), () => exchange('GET', at, 400))).toEqual([]);
      // A retrieve with a query, or a write, may carry what the server refuses.
      expect(made(() => exchange('GET', `${at}?expand=all`, 400))).toEqual([]);
      expect(
        made(() => exchange('PUT', at, 400, undefined, { sent: { display_name: 'x'.repeat(300) } })),
      ).toEqual([]);
    });

    it('charges any answer but a refusal to an id the kit made up to name no record to the unknown-id rule alone, and learns nothing from it', () => {
      const contactAt = recordPath('contact', MADE_UP_IDS.contact);
      const messageAt = recordPath('message', MADE_UP_IDS.message);
      const judged = (e: ProxyExchange, state = newSession()) => {
        const reading = read(e);
        const judgement = judge(reading, state, 'documented');
        learn(state, reading);
        return { broken: judgement.violations.map((v) => v.rule), checked: judgement.checked };
      };
      // Any 4xx is the refusal owed, and counts among the exchanges judged against the rule.
      for (const status of [400, 404, 410, 403])
        expect(judged(exchange('GET', contactAt, status))).toEqual({
          broken: [],
          checked: expect.arrayContaining(['contacts.unknown-id']),
        });
      // A record answered for it, a 204, a redirect, a 500: the one fault, named by the one rule,
      // however wrong the record answered is besides.
      expect(judged(exchange('GET', contactAt, 200, { id: 7 })).broken).toEqual(['contacts.unknown-id']);
      expect(judged(exchange('DELETE', contactAt, 204)).broken).toEqual(['contacts.unknown-id']);
      expect(judged(exchange('GET', messageAt, 302)).broken).toEqual(['messages.unknown-id']);
      expect(judged(exchange('GET', messageAt, 500)).broken).toEqual(['messages.unknown-id']);
      expect(judged(exchange('PUT', messageAt, 200, {}, { sent: { message: 'nobody' } })).broken).toEqual([
        'messages.unknown-id',
      ]);
      // Nothing is learnt from it: a list that does not show it is no list that lost it.
      const state = newSession(undefined, true);
      judged(exchange('GET', contactAt, 200, { ...contact(1), id: MADE_UP_IDS.contact }), state);
      expect(judged(exchange('GET', '/v1/contacts', 200, page([], false)), state).broken).toEqual([]);
      // Another id that names nothing the session knows is not judged so: traffic cannot tell it.
      expect(judged(exchange('GET', '/v1/contacts/C404', 200, contact(3))).checked).not.toContain(
        'contacts.unknown-id',
      );
    });
  });

  it('charges a read that loses some of the text a write’s answer showed to that write’s rule, where the session is the sole writer', () => {
    const m = message(7, 1, { message: 'Grüße 👋🏽 from Zürich' });
    const sent = { conversation_id: String(m.conversation_id), message: String(m.message) };
    const read = (state: SessionState, shown: unknown) => {
      broken([exchange('POST', '/v1/messages', 201, m, { sent })], 'documented', state);
      return broken(
        [exchange('GET', `/v1/messages/${String(m.id)}`, 200, { ...m, message: shown })],
        'documented',
        state,
      );
    };
    expect(read(newSession(undefined, true), 'Gr??e ?? from Z?rich')).toEqual(['messages.send']);
    expect(read(newSession(undefined, true), 'Grüße 👋🏽 from')).toEqual(['messages.send']);
    // What loses nothing (NFC, trimmed ends) is the server's choice; beside other clients, anyone may have edited it.
    expect(read(newSession(undefined, true), ' Grüße 👋🏽 from Zürich '.normalize('NFD'))).toEqual([]);
    expect(read(newSession(), 'Gr??e ?? from Z?rich')).toEqual([]);
    const edited = newSession(undefined, true);
    read(edited, m.message);
    const at = `/v1/messages/${String(m.id)}`;
    broken(
      [
        exchange(
          'PUT',
          at,
          200,
          { ...m, message: 'Neu ✓', updated_at: now() },
          { sent: { message: 'Neu ✓' } },
        ),
      ],
      'documented',
      edited,
    );
    expect(
      broken([exchange('GET', at, 200, { ...m, message: 'Neu ?', updated_at: now() })], 'documented', edited),
    ).toContain('messages.update.edit-text');
  });

  it('charges a read that loses some of the display_name a write’s answer showed to that write’s rule', () => {
    const c = contact(8, { display_name: 'Zoë 🌻' });
    const sent = {
      username: String(c.username),
      phone_number: String(c.phone_number),
      display_name: 'Zoë 🌻',
    };
    const at = `/v1/contacts/${String(c.id)}`;
    const read = (state: SessionState, shown: unknown) => {
      broken([exchange('POST', '/v1/contacts', 201, c, { sent })], 'documented', state);
      return broken([exchange('GET', at, 200, { ...c, display_name: shown })], 'documented', state);
    };
    expect(read(newSession(undefined, true), 'Zo? ?')).toEqual(['contacts.create']);
    expect(read(newSession(undefined, true), 'Zoë 🌻 ')).toEqual([]);
    expect(read(newSession(), 'Zo? ?')).toEqual([]);
    const renamed = newSession(undefined, true);
    read(renamed, 'Zoë 🌻');
    broken(
      [exchange('PUT', at, 200, { ...c, display_name: 'Ægir' }, { sent: { display_name: 'Ægir' } })],
      'documented',
      renamed,
    );
    expect(broken([exchange('GET', at, 200, { ...c, display_name: '?gir' })], 'documented', renamed)).toEqual(
      ['contacts.update.display-name'],
    );
  });
});

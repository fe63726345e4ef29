import { startJudging } from '../../contract-tests/judge/judging';
import type { PendingWrite, ProxyExchange } from '../../contract-tests/http/exchange';
import { AUTH, contact, exchange, message, page } from './exchanges';

/**
 * What no request asked for (judge/traces.ts): a record gone that no delete named, and a record a
 * refused create made all the same.
 */
function broken(
  steps: (ProxyExchange | { pending: PendingWrite[]; exchange: ProxyExchange })[],
  soleWriter = false,
  sawEveryCreate = false,
) {
  const judging = startJudging('documented', { soleWriter, sawEveryCreate });
  const rules = new Set<string>();
  for (const step of steps) {
    const outcome = 'pending' in step ? judging.judge(step.exchange, step.pending) : judging.judge(step);
    if (outcome.kind === 'error') throw new Error(outcome.message);
    if (outcome.kind === 'judged') for (const v of outcome.violations) rules.add(v.rule);
  }
  return [...rules];
}

const c1 = contact(1);
const [m1, m2] = [message(1), message(2)];
const id = (record: Record<string, unknown>) => String(record.id);
/** The accepted create of c1, with every field it shows sent. */
const created = () =>
  exchange('POST', '/v1/contacts', 201, c1, {
    sent: {
      username: String(c1.username),
      phone_number: String(c1.phone_number),
      display_name: String(c1.display_name),
    },
  });

describe('records gone that no delete named', () => {
  it('names the delete that came since when a message it did not name is gone (messages.delete.permanent)', () => {
    expect(
      broken([
        exchange('GET', `/v1/messages?conversation_id=${String(c1.conversation_id)}`, 200, page([m1, m2])),
        exchange('DELETE', `/v1/messages/${id(m1)}`, 204),
        exchange('GET', `/v1/messages/${id(m2)}`, 404, { error: 'not found' }),
      ]),
    ).toEqual(['messages.delete.permanent']);
  });

  it('names no rule when deletes of both kinds came since: which one took it cannot be told', () => {
    const c2 = contact(2);
    expect(
      broken([
        exchange('GET', `/v1/messages?conversation_id=${String(c1.conversation_id)}`, 200, page([m1, m2])),
        exchange('DELETE', `/v1/messages/${id(m1)}`, 204),
        exchange('DELETE', `/v1/contacts/${id(c2)}`, 204),
        exchange('GET', `/v1/messages/${id(m2)}`, 404, { error: 'not found' }),
      ]),
    ).toEqual([]);
  });

  it('names, of the deletes since, the message delete in its own conversation before a contact delete (messages.delete.permanent), in a retrieve and in a list on one page; a list that lacks it after a contact delete only is held until a retrieve tells: its own rule when alive, the delete’s when gone', () => {
    const c2 = contact(2);
    const seen = [
      exchange('GET', '/v1/contacts', 200, page([c1, c2])),
      exchange('GET', `/v1/messages?conversation_id=${String(c1.conversation_id)}`, 200, page([m1, m2])),
    ];
    const deletes = () => [
      exchange('DELETE', `/v1/contacts/${id(c2)}`, 204),
      exchange('DELETE', `/v1/messages/${id(m1)}`, 204),
    ];
    expect(
      broken([...seen, ...deletes(), exchange('GET', `/v1/messages/${id(m2)}`, 404, { error: 'not found' })]),
    ).toEqual(['messages.delete.permanent']);
    const conversation = `/v1/messages?conversation_id=${String(c1.conversation_id)}`;
    expect(broken([...seen, ...deletes(), exchange('GET', conversation, 200, page([]))])).toEqual([
      'messages.delete.permanent',
    ]);
    // A list that lacks it after a contact's delete only is held: a retrieve after it that shows it
    // alive says the list left it out (its own rule); one that answers 404, that the delete took it.
    const lacking = () => [
      ...seen,
      exchange('DELETE', `/v1/contacts/${id(c2)}`, 204),
      exchange('GET', conversation, 200, page([m1])),
    ];
    expect(broken(lacking())).toEqual([]);
    expect(broken([...lacking(), exchange('GET', `/v1/messages/${id(m2)}`, 200, m2)])).toEqual([
      'messages.list.conversation-filter',
    ]);
    expect(
      broken([...lacking(), exchange('GET', `/v1/messages/${id(m2)}`, 404, { error: 'not found' })]),
    ).toEqual(['contacts.delete']);
    expect(
      broken([
        ...seen,
        exchange('DELETE', `/v1/contacts/${id(c2)}`, 204),
        exchange('GET', `/v1/messages/${id(m2)}`, 404, { error: 'not found' }),
        // Gone, as the 404 said: the list after it is not held to it.
        exchange('GET', conversation, 200, page([m1])),
      ]),
    ).toEqual(['contacts.delete']);
  });

  it('names retrieve when no delete came since the record was shown alive (contacts.retrieve)', () => {
    expect(
      broken([
        exchange('GET', `/v1/contacts/${id(c1)}`, 200, c1),
        exchange('GET', `/v1/contacts/${id(c1)}`, 404, { error: 'not found' }),
      ]),
    ).toEqual(['contacts.retrieve']);
  });

  it('keeps silent when the record was named by a delete, or one on its way', () => {
    expect(
      broken([
        exchange('GET', `/v1/messages/${id(m2)}`, 200, m2),
        exchange('DELETE', `/v1/messages/${id(m2)}`, 204),
        exchange('GET', `/v1/messages/${id(m2)}`, 404, { error: 'not found' }),
      ]),
    ).toEqual([]);
    expect(
      broken([
        exchange('GET', `/v1/contacts/${id(c1)}`, 200, c1),
        {
          pending: [{ method: 'DELETE', url: `/v1/contacts/${id(c1)}`, authorization: AUTH }],
          exchange: exchange('GET', `/v1/contacts/${id(c1)}`, 404, { error: 'not found' }),
        },
      ]),
    ).toEqual([]);
  });
});

describe('a contact a refused create made all the same', () => {
  const refused = () =>
    exchange(
      'POST',
      '/v1/contacts',
      400,
      { error: 'phone_number is required' },
      { sent: { username: String(c1.username) } },
    );

  it('is a trace of the refused request (contacts.create.requires-username-and-phone-number)', () => {
    expect(broken([refused(), exchange('GET', '/v1/contacts', 200, page([c1]))])).toEqual([
      'contacts.create.requires-username-and-phone-number',
    ]);
  });

  it('is no trace once a create with that username was accepted, in the accepted answer nor after', () => {
    // Made in the order they are sent: the refusal first, then the create that fixed it.
    const first = refused();
    const accepted = exchange('POST', '/v1/contacts', 201, c1, {
      sent: {
        username: String(c1.username),
        phone_number: String(c1.phone_number),
        display_name: String(c1.display_name),
      },
    });
    expect(broken([first, accepted, exchange('GET', '/v1/contacts', 200, page([c1]))])).toEqual([]);
  });
});

describe('a message a refused send made all the same', () => {
  const conversation = String(c1.conversation_id);
  const refused = (sent: Record<string, string>) =>
    exchange('POST', '/v1/messages', 400, { error: 'message is required' }, { sent });
  const lackingText = () => refused({ conversation_id: conversation });
  const listed = (...messages: unknown[]) =>
    exchange('GET', `/v1/messages?conversation_id=${conversation}`, 200, page(messages));
  const stray = message(7, 1, { message: 'the server’s own' });

  it('is a trace of the refused request in the conversation of a contact the run made, whatever its text (messages.send.requires-conversation-id-and-message)', () => {
    expect(broken([created(), lackingText(), listed(stray)], true, true)).toEqual([
      'messages.send.requires-conversation-id-and-message',
    ]);
    expect(
      broken(
        [created(), lackingText(), exchange('GET', `/v1/messages/${id(stray)}`, 200, stray)],
        true,
        true,
      ),
    ).toEqual(['messages.send.requires-conversation-id-and-message']);
  });

  it('is a trace when it has the text of a send refused for another reason (messages.send)', () => {
    const text = String(m1.message);
    expect(
      broken(
        [
          created(),
          refused({ conversation_id: conversation, message: text, 'attachments[0]': 'x' }),
          listed(m1),
        ],
        true,
        true,
      ),
    ).toEqual(['messages.send']);
  });

  it('is none of the refused send when an accepted send made it, or it was shown before the refusal', () => {
    const sent = exchange('POST', '/v1/messages', 201, m1, {
      sent: { conversation_id: conversation, message: String(m1.message) },
    });
    expect(broken([created(), sent, lackingText(), listed(m1)], true, true)).toEqual([]);
    expect(broken([created(), listed(stray), lackingText(), listed(stray)], true, true)).toEqual([]);
  });

  it('is not judged when another may write there: the proxy, a create of unknown outcome, a send on its way, a contact the run did not make', () => {
    expect(broken([created(), lackingText(), listed(stray)], false, true)).toEqual([]);
    expect(broken([created(), lackingText(), listed(stray)], true, false)).toEqual([]);
    const onItsWay = [{ method: 'POST', url: '/v1/messages', authorization: AUTH }];
    expect(
      broken([created(), lackingText(), { pending: onItsWay, exchange: listed(stray) }], true, true),
    ).toEqual([]);
    const shown = exchange('GET', '/v1/contacts', 200, page([c1]));
    expect(broken([shown, lackingText(), listed(stray)], true, true)).toEqual([]);
  });
});

describe('a message the session made and never updated, read again', () => {
  const sent = () =>
    exchange('POST', '/v1/messages', 201, m1, {
      sent: { conversation_id: String(m1.conversation_id), message: String(m1.message) },
    });
  const read = () => exchange('GET', `/v1/messages/${id(m1)}`, 200, { ...m1, updated_at: 1_795_000_999 });

  it('shows updated_at null when the session is its sole writer (messages.send.new-message-defaults)', () => {
    expect(broken([sent(), read()], true)).toEqual(['messages.send.new-message-defaults']);
  });

  it('leaves a view without updated_at to the fields rule (messages.fields)', () => {
    const { updated_at: _left, ...without } = m1;
    expect(broken([sent(), exchange('GET', `/v1/messages/${id(m1)}`, 200, without)], true)).toEqual([
      'messages.fields',
    ]);
  });

  it('may show any updated_at to the proxy, beside which other clients write', () => {
    expect(broken([sent(), read()], false)).toEqual([]);
  });
});

describe('updated_at after updates of one message on their way at once', () => {
  const sent = () =>
    exchange('POST', '/v1/messages', 201, m1, {
      sent: { conversation_id: String(m1.conversation_id), message: String(m1.message) },
    });
  const put = (text: string, updatedAt: number) =>
    exchange(
      'PUT',
      `/v1/messages/${id(m1)}`,
      200,
      { ...m1, message: text, updated_at: updatedAt },
      {
        sent: { message: text },
      },
    );
  // Two updates: the second sent before the first was answered, answered before it.
  const overlapping = () => {
    const [first, second] = [put('first', 1_795_000_001), put('second', 1_795_000_002)];
    return [
      { ...first, finishedAt: second.finishedAt + 10 },
      { ...second, startedAt: first.startedAt + 1 },
    ];
  };
  const read = (updatedAt: number) =>
    exchange('GET', `/v1/messages/${id(m1)}`, 200, { ...m1, message: 'second', updated_at: updatedAt });

  it('takes either answer for the last: the one applied last may have been answered first', () => {
    expect(broken([sent(), ...overlapping(), read(1_795_000_002)], true)).toEqual([]);
  });

  it('holds the reads after them to what a retrieve after both showed (messages.update.updated-at)', () => {
    expect(broken([sent(), ...overlapping(), read(1_795_000_002), read(1_795_000_003)], true)).toEqual([
      'messages.update.updated-at',
    ]);
  });

  it('takes either text for the last: the edit applied last may have been answered first', () => {
    const readText = (text: string) =>
      exchange('GET', `/v1/messages/${id(m1)}`, 200, { ...m1, message: text, updated_at: 1_795_000_001 });
    expect(broken([sent(), ...overlapping(), readText('first')], true)).toEqual([]);
  });

  it('holds the reads after a later edit on its own to its text (messages.update.edit-text)', () => {
    const readText = (text: string) =>
      exchange('GET', `/v1/messages/${id(m1)}`, 200, { ...m1, message: text, updated_at: 1_795_000_003 });
    expect(broken([sent(), ...overlapping(), put('third', 1_795_000_003), readText('first')], true)).toEqual([
      'messages.update.edit-text',
    ]);
  });

  it('holds a read after one update alone to what its answer showed (messages.update.updated-at)', () => {
    expect(broken([sent(), put('second', 1_795_000_002), read(1_795_000_003)], true)).toEqual([
      'messages.update.updated-at',
    ]);
  });
});

describe('reactions and attachments that updates on their way at once acknowledged', () => {
  const sent = () =>
    exchange('POST', '/v1/messages', 201, m1, {
      sent: { conversation_id: String(m1.conversation_id), message: String(m1.message) },
    });
  const file = (n: number) => ({
    filename: `f${n}.png`,
    file_url: `https://example.com/f${n}.png`,
    file_type: 'image/png',
  });
  const put = (form: Record<string, string>, shown: Record<string, unknown>) =>
    exchange(
      'PUT',
      `/v1/messages/${id(m1)}`,
      200,
      { ...m1, ...shown, updated_at: Number(m1.created_at) + 5 },
      { sent: form },
    );
  /** Two updates, the second sent before the first was answered: each answered with its own change. */
  const atOnce = (first: ProxyExchange, second: ProxyExchange) => [
    { ...first, finishedAt: second.finishedAt + 10 },
    { ...second, startedAt: first.startedAt + 1 },
  ];
  const read = (shown: Record<string, unknown>) =>
    exchange('GET', `/v1/messages/${id(m1)}`, 200, {
      ...m1,
      ...shown,
      updated_at: Number(m1.created_at) + 5,
    });
  const reactions = () =>
    atOnce(
      put({ 'reactions[heart][]': 'ann' }, { reactions: [{ heart: ['ann'] }] }),
      put({ 'reactions[heart][]': 'bob' }, { reactions: [{ heart: ['bob'] }] }),
    );
  // The one applied last judged first: the answer judged last shows fewer.
  const attachments = () =>
    atOnce(
      put({ 'attachments[0][file_url]': file(1).file_url }, { attachments: [file(2), file(1)] }),
      put({ 'attachments[0][file_url]': file(2).file_url }, { attachments: [file(2)] }),
    );

  it('holds a read after them to every reaction their answers showed (messages.update.add-reaction)', () => {
    expect(broken([sent(), ...reactions(), read({ reactions: [{ heart: ['bob'] }] })], true)).toEqual([
      'messages.update.add-reaction',
    ]);
  });

  it('takes a read that shows them all', () => {
    expect(broken([sent(), ...reactions(), read({ reactions: [{ heart: ['bob', 'ann'] }] })], true)).toEqual(
      [],
    );
  });

  it('holds a read after them to the most attachments an answer showed (messages.update.add-attachment)', () => {
    expect(broken([sent(), ...attachments(), read({ attachments: [file(2)] })], true)).toEqual([
      'messages.update.add-attachment',
    ]);
    expect(broken([sent(), ...attachments(), read({ attachments: [file(1), file(2)] })], true)).toEqual([]);
  });
});

describe('renames of one contact on their way at once', () => {
  const rename = (name: string) =>
    exchange(
      'PUT',
      `/v1/contacts/${id(c1)}`,
      200,
      { ...c1, display_name: name },
      { sent: { display_name: name } },
    );
  /** Two renames, the second sent before the first was answered. */
  const atOnce = () => {
    const [first, second] = [rename('Ann'), rename('Di')];
    return [
      { ...first, finishedAt: second.finishedAt + 10 },
      { ...second, startedAt: first.startedAt + 1 },
    ];
  };
  const read = (name: string) =>
    exchange('GET', `/v1/contacts/${id(c1)}`, 200, { ...c1, display_name: name });

  it('takes either name for the last: the rename applied last may have been answered first', () => {
    expect(broken([created(), ...atOnce(), read('Ann')])).toEqual([]);
    expect(broken([created(), ...atOnce(), read('Di')])).toEqual([]);
  });

  it('holds a read to the name before them, and after a later rename on its own, to theirs (contacts.update.display-name)', () => {
    expect(broken([created(), ...atOnce(), read(String(c1.display_name))])).toEqual([
      'contacts.update.display-name',
    ]);
    expect(broken([created(), ...atOnce(), rename('Cy'), read('Ann')])).toEqual([
      'contacts.update.display-name',
    ]);
  });
});

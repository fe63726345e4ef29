import { Ledger } from '../../scripts/soak/ledger';
import type { Exchange } from '../../scripts/soak/traffic';
import { createMockServer } from '../../src';

/**
 * The soak's client-side ledger (scripts/soak/ledger.ts) judges a durable mock by reading back
 * what it acknowledged: it must pass a mock that kept every write, cascade deletes included, and
 * name the record of each way a write can be lost. Here the mock is changed behind the ledger's
 * back, as a mock that lost or altered writes would be.
 */
describe("the durable soak's ledger", () => {
  const mock = createMockServer({ seed: 5, contacts: 3, messages: 6 });
  let url: URL;
  beforeAll(async () => {
    url = new URL(await mock.start());
  });
  afterAll(() => mock.stop());

  /** A request as the traffic sends it, and what came of it. */
  const send = async (method: string, path: string, token: string, body?: string): Promise<Exchange> => {
    const sentAt = Date.now();
    const res = await fetch(new URL(path, url), {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(body ? { body } : {}),
    });
    const text = await res.text();
    return {
      method,
      path,
      token,
      body,
      status: res.status,
      answer: text ? JSON.parse(text) : undefined,
      sentAt,
      endedAt: Date.now(),
    };
  };
  const seen = async (ledger: Ledger, method: string, path: string, token: string, body?: string) => {
    const exchange = await send(method, path, token, body);
    ledger.observe(exchange);
    return exchange.answer as { id: string; conversation_id: string };
  };

  const created = (ledger: Ledger, token: string, username: string, phone: string) =>
    seen(
      ledger,
      'POST',
      '/v1/contacts',
      token,
      new URLSearchParams({ username, phone_number: phone }).toString(),
    );

  const sent = (ledger: Ledger, token: string, to: { conversation_id: string }, message: string) =>
    seen(
      ledger,
      'POST',
      '/v1/messages',
      token,
      new URLSearchParams({ conversation_id: to.conversation_id, message }).toString(),
    );

  it('passes a mock that kept every acknowledged write, deletes and cascades included', async () => {
    const ledger = new Ledger();
    const token = 'ledger-honest';
    await seen(ledger, 'GET', '/v1/contacts?limit=100', token);
    const contact = await created(ledger, token, 'kept', '+15550100');
    const other = await created(ledger, token, 'gone', '+15550101');
    const message = await sent(ledger, token, contact, 'hi');
    await seen(ledger, 'PUT', `/v1/messages/${message.id}`, token, 'message=edited&reactions[heart][]=ann');
    await seen(ledger, 'PUT', `/v1/contacts/${contact.id}`, token, 'display_name=Kept');
    const orphan = await sent(ledger, token, other, 'bye');
    await seen(ledger, 'DELETE', `/v1/contacts/${other.id}`, token);
    const counts = await ledger.check(url);
    expect(counts).toMatchObject({
      acknowledged: 7,
      checked: 4,
      uncertain: 0,
      lost: [],
      changed: [],
      back: [],
    });
    expect(orphan.id).toBeDefined();
  });

  it('names a write the mock lost, one it changed, and a delete it undid', async () => {
    const ledger = new Ledger();
    const token = 'ledger-broken';
    const lostOne = await created(ledger, token, 'lost', '+15550102');
    const changedOne = await created(ledger, token, 'changed', '+15550103');
    const undone = await created(ledger, token, 'undone', '+15550104');
    // Behind the ledger's back: the first is gone, the second renamed, and the third's delete
    // acknowledged without being applied.
    await send('DELETE', `/v1/contacts/${lostOne.id}`, token);
    await send('PUT', `/v1/contacts/${changedOne.id}`, token, 'display_name=Someone+else');
    ledger.observe({
      method: 'DELETE',
      path: `/v1/contacts/${undone.id}`,
      token,
      status: 204,
      sentAt: 0,
      endedAt: 0,
    });
    const counts = await ledger.check(url);
    expect(counts.lost).toEqual([`${token} contacts ${lostOne.id} (404)`]);
    expect(counts.changed).toEqual([expect.stringContaining(`${token} contacts ${changedOne.id}: `)]);
    expect(counts.changed[0]).toContain('"display_name":"Someone else"');
    expect(counts.back).toEqual([`${token} contacts ${undone.id} (200)`]);
  });

  it('does not judge a record whose last write got no answer, nor the messages of a contact so deleted', async () => {
    const ledger = new Ledger();
    const token = 'ledger-unanswered';
    const contact = await created(ledger, token, 'maybe', '+15550105');
    const message = await sent(ledger, token, contact, 'hi');
    // The delete went out and no answer came (the mock killed under it); here it was applied.
    await send('DELETE', `/v1/contacts/${contact.id}`, token);
    ledger.observe({ method: 'DELETE', path: `/v1/contacts/${contact.id}`, token, sentAt: 0, endedAt: 0 });
    const counts = await ledger.check(url);
    expect(counts).toMatchObject({
      unanswered: 1,
      checked: 0,
      uncertain: 2,
      lost: [],
      changed: [],
      back: [],
    });
    expect(message.id).toBeDefined();
  });
});

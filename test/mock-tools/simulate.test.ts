import type { Express } from 'express';
import { api, createContact, makeApp, sendMessage } from '../helpers';
import type { Message } from '../../src/types';
import type { MockLocals } from '../../src/express/app';

/**
 * `--simulate`: a contact answers a while after a message is sent. The clock is jest's (fake
 * timers, `Date` too), so each test says exactly when the reply comes and what it holds.
 */
const DELAY = { min: 20, max: 40 };
/** 10 ms before a second ends: a reply DELAY later is in the next second. */
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0) + 990;

beforeEach(() => {
  // Only the timers and the date: supertest's sockets keep their own ticks.
  jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
});
afterEach(() => jest.useRealTimers());

const pendingOf = (app: Express) => (app.locals as unknown as MockLocals).simulator!.pending;

async function conversation(app: Express, id: string): Promise<Message[]> {
  return (await api(app).get(`/v1/messages?conversation_id=${id}&limit=100`).expect(200)).body.data;
}

/** Sends `text` to a new contact, lets the clock run `ms`, and gives the conversation, newest first. */
async function replyTo(app: Express, text: string, ms = DELAY.max) {
  const contact = await createContact(app, { username: `bot_${text.replace(/\W/g, '_')}` });
  const sent = await sendMessage(app, contact.conversation_id, text);
  jest.advanceTimersByTime(ms);
  return { contact, sent, messages: await conversation(app, contact.conversation_id) };
}

describe('--simulate (a living conversation)', () => {
  it('answers a sent message within its delay, not before, and the contact becomes active then', async () => {
    const app = makeApp({ simulate: { replyDelayMs: DELAY } });
    const early = await replyTo(app, 'Are you there?', DELAY.min - 1);
    expect(early.messages.map((m) => m.id)).toEqual([early.sent.id]);
    expect(pendingOf(app)).toBe(1);
    jest.advanceTimersByTime(DELAY.max - DELAY.min + 1);
    expect(pendingOf(app)).toBe(0);
    const [reply, original] = await conversation(app, early.contact.conversation_id);
    expect(original!.id).toBe(early.sent.id);
    expect(reply!.message).toMatch(/\S/);
    expect(reply!.contact.id).toBe(early.contact.id);
    // Sent in one second, answered in the next: active when it answered, not when it was written to.
    expect(early.sent.created_at).toBe(Math.floor(T0 / 1000));
    expect(reply!.contact.last_active_at).toBe(Math.floor(T0 / 1000) + 1);
    expect(reply!.created_at).toBe(Math.floor(T0 / 1000) + 1);
  });

  it('says the same things, and reacts the same way, for the same seed; other things for another', async () => {
    const said = async (seed: number) => {
      const app = makeApp({ seed, simulate: { replyDelayMs: DELAY } });
      const out: string[] = [];
      for (const text of ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']) {
        const { messages } = await replyTo(app, text);
        expect(messages).toHaveLength(2);
        out.push(`${messages[0]!.message} | ${JSON.stringify(messages[1]!.reactions)}`);
      }
      return out;
    };
    const nine = await said(9);
    expect(await said(9)).toEqual(nine);
    expect(await said(10)).not.toEqual(nine);
  });

  it('reacts to some messages and not others (a 35% chance a message, seeded)', async () => {
    const app = makeApp({ seed: 3, simulate: { replyDelayMs: DELAY } });
    const reacted: boolean[] = [];
    for (let i = 0; i < 12; i++) {
      const { messages, contact } = await replyTo(app, `message ${i}`);
      const reactions = messages[1]!.reactions;
      reacted.push(reactions.length > 0);
      for (const reaction of reactions) expect(Object.values(reaction)).toEqual([[contact.username]]);
    }
    // What seed 3 gives, in order: the same on every run.
    expect(reacted.map((r) => (r ? 'R' : '.')).join('')).toBe(SEED_3_REACTIONS);
  });

  it('is off by default', async () => {
    const { messages } = await replyTo(makeApp(), 'hello?', 10_000);
    expect(messages).toHaveLength(1);
  });

  it('lets nobody answer when the contact was deleted meanwhile, and stops pending replies on stop()', async () => {
    const app = makeApp({ simulate: { replyDelayMs: { min: 80, max: 80 } } });
    const contact = await createContact(app);
    await sendMessage(app, contact.conversation_id, 'bye');
    await api(app).delete(`/v1/contacts/${contact.id}`).expect(204);
    expect(pendingOf(app)).toBe(1);
    jest.advanceTimersByTime(80);
    expect(pendingOf(app)).toBe(0);
    await api(app).get(`/v1/contacts/${contact.id}`).expect(404);
    const other = await createContact(app);
    await sendMessage(app, other.conversation_id, 'still there?');
    (app.locals as unknown as MockLocals).simulator!.stop();
    jest.advanceTimersByTime(1_000);
    expect(await conversation(app, other.conversation_id)).toHaveLength(1);
  });
});

const SEED_3_REACTIONS = '...R.R...RRR';

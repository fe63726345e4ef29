import type { Express } from 'express';
import { api, createContact, makeApp, sendMessage } from '../helpers';
import type { Message } from '../../src/types';
import type { MockLocals } from '../../src/express/app';

const FAST = { replyDelayMs: { min: 20, max: 40 } };

async function replyTo(app: Express, text: string) {
  const contact = await createContact(app, { username: 'bot' });
  const sent = await sendMessage(app, contact.conversation_id, text);
  await new Promise((resolve) => setTimeout(resolve, 120));
  const page = await api(app).get(`/v1/messages?conversation_id=${contact.conversation_id}`).expect(200);
  return { contact, sent, messages: page.body.data as Message[] };
}

describe('--simulate (a living conversation)', () => {
  it('answers a sent message a little later, and the contact becomes active', async () => {
    const { contact, sent, messages } = await replyTo(makeApp({ simulate: FAST }), 'Are you there?');
    expect(messages).toHaveLength(2);
    const [reply, original] = messages;
    expect(original!.id).toBe(sent.id);
    expect(reply!.message.length).toBeGreaterThan(0);
    expect(reply!.contact.id).toBe(contact.id);
    expect(reply!.contact.last_active_at).not.toBeNull();
    expect(reply!.contact.last_active_at).toBeGreaterThanOrEqual(sent.created_at);
  });

  it('says the same things for the same seed', async () => {
    const texts = async () => {
      const app = makeApp({ seed: 9, simulate: FAST });
      const out: string[] = [];
      for (const text of ['one', 'two', 'three']) {
        const { messages } = await replyTo(app, text);
        out.push(messages[0]!.message, JSON.stringify(messages[1]!.reactions));
      }
      return out;
    };
    expect(await texts()).toEqual(await texts());
  });

  it('sometimes reacts to the message', async () => {
    const app = makeApp({ seed: 3, simulate: FAST });
    const reactions: unknown[] = [];
    for (let i = 0; i < 8; i++)
      reactions.push(...(await replyTo(app, `message ${i}`)).messages[1]!.reactions);
    expect(reactions.length).toBeGreaterThan(0);
    expect(reactions.length).toBeLessThan(8);
  });

  it('is off by default', async () => {
    const { messages } = await replyTo(makeApp(), 'hello?');
    expect(messages).toHaveLength(1);
  });

  it('lets nobody answer when the contact was deleted meanwhile', async () => {
    const app = makeApp({ simulate: { replyDelayMs: { min: 80, max: 80 } } });
    const contact = await createContact(app);
    await sendMessage(app, contact.conversation_id, 'bye');
    await api(app).delete(`/v1/contacts/${contact.id}`).expect(204);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((app.locals as unknown as MockLocals).simulator!.pending).toBe(0);
    await api(app).get(`/v1/contacts/${contact.id}`).expect(404);
  });
});

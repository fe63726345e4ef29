import {
  attachmentPairs,
  createdId,
  makeContact,
  makeMessage,
  messageText,
  postMessage,
  shared,
  useCleanup,
} from '../model/data';
import { is2xx, is4xx, send, type Exchange } from '../http/http';
import { walk } from '../model/paging';
import { reactionNames, reactionPair } from '../model/samples';
import { rule, type RuleContext } from '../model/harness';
import { MADE_UP_IDS, recordPath } from '../rules/resources';
import { pastTheWindow } from '../model/settle';

useCleanup();

const UNKNOWN_ID = MADE_UP_IDS.message;

/**
 * Adds one reaction as the document shows it (`reactions[<name>][]=<username>`). Allowed names are
 * not shown: a server may refuse one name and take another, so the kit tries a few.
 */
async function react(messageId: string, username: string): Promise<{ exchange: Exchange; name: string }> {
  let last: { exchange: Exchange; name: string } | undefined;
  for (const name of reactionNames()) {
    last = {
      exchange: await send('PUT', recordPath('message', messageId), {
        form: [reactionPair(name, username)],
      }),
      name,
    };
    if (!is4xx(last.exchange)) break;
  }
  return last!;
}

const sender = shared(() => makeContact('sender', { display_name: 'Sender Name' }));

rule(
  'messages.fields',
  'a message sent, then retrieved and listed: the judge holds each answer to the fields of 2.2',
  async () => {
    const contact = await sender();
    const message = await makeMessage(contact.conversation_id, 'fields');
    await send('GET', recordPath('message', message.id));
    await send('GET', '/v1/messages');
  },
);

rule(
  'messages.contact-fields',
  "a message sent, then retrieved and listed: the judge holds each answer's contact to the six fields of 2.2, without display_name or conversation_id",
  async () => {
    const contact = await sender();
    const message = await makeMessage(contact.conversation_id, 'senderfields');
    await send('GET', recordPath('message', message.id));
    await send('GET', '/v1/messages');
  },
);

rule(
  'messages.contact-is-sender',
  "a message sent, then its contact retrieved, the message retrieved and listed: the judge holds each answer's contact to the conversation's contact",
  async () => {
    const contact = await sender();
    const message = await makeMessage(contact.conversation_id, 'sender');
    await send('GET', recordPath('contact', contact.id));
    await send('GET', recordPath('message', message.id));
    await send('GET', '/v1/messages', { query: { conversation_id: contact.conversation_id } });
  },
);

rule(
  'messages.reactions-shape',
  "a message reacted to, then retrieved and listed: the judge holds each answer's reactions to {name: [usernames]} objects",
  async (t: RuleContext) => {
    const contact = await sender();
    const message = await makeMessage(contact.conversation_id, 'shape');
    const { exchange: reacted } = await react(message.id, contact.username);
    if (!is2xx(reacted))
      t.notRun(`the server did not take a reaction (${reacted.status}); see messages.update.add-reaction`);
    await send('GET', recordPath('message', message.id));
    await send('GET', '/v1/messages');
  },
);

rule(
  'messages.send',
  'a message sent, then retrieved and listed in its conversation: the judge holds the answer to the created message, in that conversation, with that text, and every later view to it',
  async (t: RuleContext) => {
    const contact = await sender();
    const sent = await postMessage([
      ['conversation_id', contact.conversation_id],
      ['message', messageText('send')],
    ]);
    if (!is2xx(sent)) t.notRun(`the server did not send the message (${sent.status})`);
    const id = createdId(sent);
    if (id !== undefined) await send('GET', recordPath('message', id));
    await send('GET', '/v1/messages', { query: { conversation_id: contact.conversation_id } });
  },
);

rule(
  'messages.send.requires-conversation-id-and-message',
  'a send without conversation_id, one without message, then the lists where a trace would show: the judge holds each to a refusal that leaves no trace',
  async () => {
    // A contact of its own: its conversation is empty, and must stay so.
    const contact = await makeContact('required');
    const text = messageText('noconv');
    await postMessage([['message', text]]);
    await postMessage([['conversation_id', contact.conversation_id]]);
    await walk('/v1/messages', { conversation_id: contact.conversation_id }, { limit: 100 });
    await walk(
      '/v1/messages',
      {},
      { limit: 100, maxPages: 50, until: (items) => items.some((item) => item.message === text) },
    );
  },
);

rule(
  'messages.send.new-message-defaults',
  "a message sent without reactions or attachments: the judge holds the send's answer, and later views until an update, to its defaults",
  async (t: RuleContext) => {
    const contact = await sender();
    const sent = await postMessage([
      ['conversation_id', contact.conversation_id],
      ['message', messageText('defaults')],
    ]);
    if (!is2xx(sent)) t.notRun(`the server did not send the message (${sent.status}); see messages.send`);
  },
);

rule(
  'messages.send.attachments',
  'a message sent with an attachment, then retrieved: the judge holds the answer and the view to carry it',
  async (t: RuleContext) => {
    const contact = await sender();
    const sent = await postMessage([
      ['conversation_id', contact.conversation_id],
      ['message', messageText('attached')],
      ...attachmentPairs(0, 'sent.pdf'),
    ]);
    if (is4xx(sent)) {
      t.notRun(
        `the server refused the kit's attachment (${sent.status}); the document does not show an attachment's fields, the kit sends filename, file_url and file_type`,
      );
    }
    const id = is2xx(sent) ? createdId(sent) : undefined;
    if (id !== undefined) await send('GET', recordPath('message', id));
  },
);

rule(
  'messages.retrieve',
  'a message sent, then retrieved: the judge holds the answer to that message, as sent',
  async () => {
    const contact = await sender();
    const message = await makeMessage(contact.conversation_id, 'retrieve');
    await send('GET', recordPath('message', message.id));
  },
);

/**
 * A message of the sender's updated by `update`, then retrieved: the requests that show an update
 * kept or broken. A refusal (a 4xx) is the server's answer where what is sent has a shape the
 * document does not show: the rule is not run, with `refused` saying why.
 */
async function updatedThenRetrieved(
  t: RuleContext,
  label: string,
  update: (id: string, username: string) => Promise<Exchange>,
  refused?: (status: number) => string,
): Promise<void> {
  const contact = await sender();
  const message = await makeMessage(contact.conversation_id, label);
  const updated = await update(message.id, contact.username);
  if (refused && is4xx(updated)) t.notRun(refused(updated.status));
  await send('GET', recordPath('message', message.id));
}

rule(
  'messages.update.edit-text',
  "a message edited, then retrieved: the judge holds the edit's answer and the view to the new text",
  (t: RuleContext) =>
    updatedThenRetrieved(t, 'edit', (id) =>
      send('PUT', recordPath('message', id), { form: { message: messageText('edited') } }),
    ),
);

rule(
  'messages.update.add-reaction',
  "a message reacted to, then retrieved: the judge holds the update's answer and the view to show the reaction",
  (t: RuleContext) =>
    updatedThenRetrieved(
      t,
      'react',
      async (id, username) => (await react(id, username)).exchange,
      () =>
        `the server refused every reaction name the kit tried (${reactionNames().join(', ')}); allowed names are not shown`,
    ),
);

rule(
  'messages.update.add-attachment',
  "a message given an attachment, then retrieved: the judge holds the update's answer and the view to one more attachment",
  (t: RuleContext) =>
    updatedThenRetrieved(
      t,
      'attach',
      (id) => send('PUT', recordPath('message', id), { form: attachmentPairs(0, 'added.pdf') }),
      (status) =>
        `the server refused the kit's attachment (${status}); the document does not show an attachment's fields, the kit sends filename, file_url and file_type`,
    ),
);

rule(
  'messages.update.updated-at',
  'a message edited, one reacted to, one given an attachment, each retrieved after: the judge holds each answer to an updated_at time',
  async (t: RuleContext) => {
    const contact = await sender();
    const updates: ((id: string) => Promise<Exchange>)[] = [
      (id) => send('PUT', recordPath('message', id), { form: { message: messageText('stamped') } }),
      async (id) => (await react(id, contact.username)).exchange,
      (id) => send('PUT', recordPath('message', id), { form: attachmentPairs(0, 'stamped.pdf') }),
    ];
    let taken = 0;
    for (const update of updates) {
      const message = await makeMessage(contact.conversation_id, 'stamped');
      // A refused reaction name or attachment shape is the server's to refuse (formats are not shown).
      if (is4xx(await update(message.id))) continue;
      taken += 1;
      await send('GET', recordPath('message', message.id));
    }
    if (taken === 0) t.notRun('the server refused every update the kit tried; see messages.update.edit-text');
  },
);

rule(
  'messages.delete.permanent',
  'a message deleted, then retrieved, updated and its conversation walked: the judge holds the delete to a success, the retrieve and the update to refusals, and the list to the message gone',
  async () => {
    const contact = await sender();
    const message = await makeMessage(contact.conversation_id, 'delete');
    await send('DELETE', recordPath('message', message.id));
    await send('GET', recordPath('message', message.id));
    await send('PUT', recordPath('message', message.id), { form: { message: 'back again' } });
    // A list may show a delete up to --settle-ms late.
    await pastTheWindow();
    await walk('/v1/messages', { conversation_id: contact.conversation_id }, { limit: 100 });
  },
);

rule(
  'messages.unknown-id',
  'retrieve, update and delete of an id made up to name no message: the judge holds each to a refusal',
  async () => {
    await send('GET', recordPath('message', UNKNOWN_ID));
    await send('PUT', recordPath('message', UNKNOWN_ID), { form: { message: 'nobody' } });
    await send('DELETE', recordPath('message', UNKNOWN_ID));
  },
);

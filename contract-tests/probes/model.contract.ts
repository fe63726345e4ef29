import { useCleanup } from '../model/data';
import { send } from '../http/http';
import { mustSucceed, Operations } from '../model/operations';
import { walk, walkBack } from '../model/paging';
import { rule, type RuleContext } from '../model/harness';
import { pastTheWindow } from '../model/settle';
import { reactionNames } from '../model/samples';
import { verify } from '../model/views';
import { mapAtOnce } from '../http/at-once';
import { recordPath } from '../rules/resources';

/**
 * The model's checks: after every step, every view of the records involved is read and compared
 * with what the kit's model of its own data makes certain (model/model.ts, model/views.ts). A
 * difference fails the rule that makes the model's value certain, naming the view.
 */
useCleanup();

/** A fresh model per test: each test makes its own data, and no test depends on another. */
const start = () => new Operations();

async function contact(ops: Operations, label: string, displayName?: string): Promise<string> {
  const done = await ops.createContact(label, displayName);
  mustSucceed(done, 'contacts.create', 'creating a contact');
  return done.id!;
}

async function message(ops: Operations, contactId: string, label: string): Promise<string> {
  const done = await ops.sendMessage(ops.model.contacts.get(contactId)!.conversationId, label);
  mustSucceed(done, 'messages.send', 'sending a message');
  return done.id!;
}

/**
 * Messages the test needs before it looks, a few sent at once (none waits on another's answer);
 * their ids in the order of the labels.
 */
const messagesOf = (ops: Operations, contactId: string, labels: string[]): Promise<string[]> =>
  mapAtOnce(labels, (label) => message(ops, contactId, label));
const labels = (label: string, count: number) => Array.from({ length: count }, (_, i) => `${label}${i}`);

rule('contacts.list', 'every contact the kit made is listed once, as retrieve shows it', async () => {
  const ops = start();
  const ids = [
    await contact(ops, 'listed0'),
    await contact(ops, 'listed1', 'Listed One'),
    await contact(ops, 'listed2', 'Listed Two'),
  ];
  await verify(ops.model, { contacts: ids });
});

rule(
  'contacts.update.keeps-the-rest',
  'a display_name update changes nothing else of the contact, in any view',
  async () => {
    const ops = start();
    const id = await contact(ops, 'keeps', 'Before Rename');
    const other = await contact(ops, 'keepsother', 'Other Contact');
    await message(ops, id, 'keeps');
    mustSucceed(await ops.renameContact(id, 'After Rename'), 'contacts.update.display-name', 'renaming');
    // Every page of the contacts list shows the new name, those past the first of small pages too.
    await verify(ops.model, {
      contacts: [id, other],
      messages: [...ops.model.messages.keys()],
      deep: 'contacts',
    });
    mustSucceed(
      await ops.renameContact(id, 'Renamed Twice'),
      'contacts.update.display-name',
      'renaming again',
    );
    await verify(ops.model, { contacts: [id, other] });
    // An update with no parameter (display_name is optional) must change nothing either.
    if ((await ops.renameContact(id, undefined)).ok) await verify(ops.model, { contacts: [id, other] });
  },
);

rule(
  'messages.update.keeps-the-rest',
  'editing the text, adding a reaction or an attachment changes nothing else, in any view',
  async (t: RuleContext) => {
    const ops = start();
    const owner = await contact(ops, 'msgkeeps');
    const id = await message(ops, owner, 'keeps');
    const neighbour = await message(ops, owner, 'neighbour');
    const focus = { contacts: [owner], messages: [id, neighbour] };
    const reacted = await ops.reactAny(id, ops.model.contacts.get(owner)!.fields.username!.value as string);
    if (reacted) mustSucceed(reacted, 'messages.update.add-reaction', 'adding a reaction');
    const attached = await ops.attach(id, 'kept.pdf');
    if (!reacted && !attached.ok)
      t.notRun(
        'the server took neither a reaction nor an attachment of the kit; see messages.update.add-reaction',
      );
    await verify(ops.model, focus);
    // The text alone: the reactions and attachments must stay.
    mustSucceed(await ops.editMessage(id, 'edited'), 'messages.update.edit-text', 'editing the text');
    await verify(ops.model, focus);
    // A reaction alone: the text must stay.
    if (reacted) {
      mustSucceed(
        await ops.react(id, reacted.name, 'second_reactor'),
        'messages.update.add-reaction',
        'adding a reaction',
      );
      await verify(ops.model, focus);
    }
    // An attachment alone: the text and reactions must stay.
    if (attached.ok) {
      mustSucceed(
        await ops.attach(id, 'kept2.pdf'),
        'messages.update.add-attachment',
        'adding an attachment',
      );
      await verify(ops.model, focus);
    }
  },
);

rule(
  'messages.update.add-reaction',
  'reactions are added to what is there: a second username under a name, a second name',
  async (t: RuleContext) => {
    const ops = start();
    const owner = await contact(ops, 'addreact');
    const id = await message(ops, owner, 'addreact');
    const first = await ops.reactAny(id, 'first_reactor');
    if (!first) {
      // Refused alone: with a text too? Then it was refused for leaving out the optional message.
      const name = reactionNames()[0]!;
      const withText = await ops.updateParts(id, {
        message: 'with a reaction',
        reaction: { name, username: 'first_reactor' },
      });
      if (withText.ok)
        t.fail(
          `a reaction alone was refused, but taken with a message text: the document calls \`message\` optional`,
          withText.exchange,
          { check: 'optional message' },
        );
      t.notRun('the server refused every reaction name the kit tried; allowed names are not shown');
    }
    mustSucceed(first, 'messages.update.add-reaction', 'adding a reaction');
    await verify(ops.model, { messages: [id] });
    mustSucceed(
      await ops.react(id, first.name, 'second_reactor'),
      'messages.update.add-reaction',
      'a second username',
    );
    await verify(ops.model, { messages: [id] });
    const names = reactionNames().filter((n) => n !== first.name);
    const second = await ops.reactAny(id, 'third_reactor', names);
    if (second) {
      mustSucceed(second, 'messages.update.add-reaction', 'a second reaction name');
      await verify(ops.model, { messages: [id] });
    }
  },
);

rule(
  'messages.update.add-attachment',
  'a second attachment is added to the first, in every view',
  async (t: RuleContext) => {
    const ops = start();
    const owner = await contact(ops, 'addattach');
    const id = await message(ops, owner, 'addattach');
    const first = await ops.attach(id, 'first.pdf');
    if (!first.ok && first.exchange.status < 500)
      t.notRun(
        `the server refused the kit's attachment (${first.exchange.status}); an attachment's fields are not shown`,
      );
    mustSucceed(first, 'messages.update.add-attachment', 'adding an attachment');
    mustSucceed(
      await ops.attach(id, 'second.pdf'),
      'messages.update.add-attachment',
      'adding a second attachment',
    );
    await verify(ops.model, { messages: [id] });
  },
);

rule(
  'messages.contact-is-sender',
  "with several conversations alive, each message's contact is its own conversation's contact, in every view",
  async () => {
    const ops = start();
    const owners = await mapAtOnce(['sendera', 'senderb', 'senderc'], (label) => contact(ops, label));
    const sent = await mapAtOnce(owners, (owner, i) => messagesOf(ops, owner, [`from${i}a`, `from${i}b`]));
    await verify(ops.model, { contacts: owners, messages: sent.flat() });
  },
);

rule(
  'contacts.delete',
  'a deleted contact is gone from every view: retrieve, the contacts list, with and without active',
  async () => {
    const ops = start();
    const doomed = await contact(ops, 'gone');
    const kept = await contact(ops, 'stays');
    // A bystander conversation, the newest: the delete must leave its messages alone.
    const bystander = await message(ops, kept, 'bystander');
    mustSucceed(await ops.deleteContact(doomed), 'contacts.delete', 'deleting the contact');
    await verify(ops.model, {
      contacts: [doomed, kept],
      messages: [bystander],
      full: true,
      active: true,
      deep: true,
    });
  },
);

rule(
  'contacts.delete.cascades-conversation',
  "a deleted contact's messages are gone from every view, nothing can be sent into it, other conversations stay",
  async () => {
    const ops = start();
    const doomed = await contact(ops, 'cascade');
    const kept = await contact(ops, 'cascadekept');
    const conversation = ops.model.contacts.get(doomed)!.conversationId;
    // A conversation longer than two pages of the default size: a cascade that deletes only what
    // one page, or two, of its own listing shows is seen.
    const all = [
      ...(await messagesOf(ops, doomed, labels('cascade', 21))),
      await message(ops, kept, 'cascadekept'),
    ];
    mustSucceed(await ops.deleteContact(doomed), 'contacts.delete', 'deleting the contact');
    await verify(ops.model, { contacts: [doomed, kept], messages: all, full: true, deep: true });
    // The judge holds the send to the conversation gone.
    await ops.sendMessage(conversation, 'into the deleted conversation');
  },
);

rule(
  'messages.delete.permanent',
  'a deleted message is gone from every view; the others of its conversation stay',
  async () => {
    const ops = start();
    const owner = await contact(ops, 'msggone');
    const messages = [
      await message(ops, owner, 'before'),
      await message(ops, owner, 'doomed'),
      await message(ops, owner, 'after'),
    ];
    mustSucceed(await ops.deleteMessage(messages[1]!), 'messages.delete.permanent', 'deleting the message');
    await verify(ops.model, { contacts: [owner], messages, full: true, deep: true });
    // The judge holds the update to a refusal.
    await send('PUT', recordPath('message', messages[1]!), { form: { message: 'back again' } });
  },
);

/** A conversation of exactly `count` messages of the kit's, for the boundary checks. */
async function conversationOf(ops: Operations, label: string, count: number): Promise<string> {
  const owner = await contact(ops, label);
  await messagesOf(ops, owner, labels(label, count));
  return ops.model.contacts.get(owner)!.conversationId;
}

const page = (conversationId: string, limit?: number) =>
  send('GET', '/v1/messages', {
    query:
      limit === undefined ? { conversation_id: conversationId } : { conversation_id: conversationId, limit },
  });

rule(
  'lists.has-more',
  'conversations of ten and eleven asked for by default, with limit equal to the count, and walked in pages of five: the judge holds has_more at each boundary (a last page exactly full among them)',
  async () => {
    const ops = start();
    const ten = await conversationOf(ops, 'ten', 10);
    const eleven = await conversationOf(ops, 'eleven', 11);
    await pastTheWindow();
    await page(ten);
    await page(eleven);
    await page(ten, 10);
    await page(eleven, 11);
    await walk('/v1/messages', { conversation_id: ten, limit: 5 });
  },
);

rule(
  'lists.limit',
  'a conversation of three asked for with limit=1 and with limit=3, all messages and the contacts with limit=1: the judge holds each page to its limit, and to as many as the list holds up to it',
  async () => {
    const ops = start();
    const conversation = await conversationOf(ops, 'limitone', 3);
    await pastTheWindow();
    await page(conversation, 1);
    await send('GET', '/v1/messages', { query: { limit: 1 } });
    await send('GET', '/v1/contacts', { query: { limit: 1 } });
    await page(conversation, 3);
  },
);

rule(
  'lists.pages',
  'a conversation of twenty-one shown whole, then walked forward and back (where the server has a way back) with limits 3, 4, 11 and none, and the contacts walked in pages of a hundred and of five: the judge holds every walk to each record once',
  async (t: RuleContext) => {
    const ops = start();
    // Longer than two pages of the default size, so that every walk crosses at least two boundaries.
    const conversation = await conversationOf(ops, 'pages', 21);
    await pastTheWindow();
    // One page that holds it whole (limit equal to its size): the judge learns the server's order.
    await page(conversation, 21);
    const why: string[] = [];
    for (const limit of [3, 4, 11, undefined]) {
      const query =
        limit === undefined ? { conversation_id: conversation } : { conversation_id: conversation, limit };
      // A limit over the server's maximum may be refused (the maximum is not shown): no walk.
      const forward = await walk('/v1/messages', query, { maxPages: 20 });
      if (forward.complete) await walkBack('/v1/messages', query, forward);
      else why.push(forward.pages.length === 0 ? 'no page of results' : (forward.reason ?? 'not to its end'));
    }
    if (why.length === 4) t.notRun(`could not walk the conversation with any limit: ${why[0]}`);
    // The contacts list, on a server that may hold many more: in large pages, then in small ones.
    await walk('/v1/contacts', {}, { limit: 100, maxPages: 200 });
    await walk('/v1/contacts', { limit: 5 }, { maxPages: 200 });
  },
);

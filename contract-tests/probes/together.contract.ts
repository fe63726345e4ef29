import { useCleanup } from '../model/data';
import { send } from '../http/http';
import { mustSucceed, Operations } from '../model/operations';
import { walk } from '../model/paging';
import { rule, type RuleContext } from '../model/harness';
import { afterBurst, bySeed, parallelRenames, parallelUpdates } from './parallel';
import { reactionNames } from '../model/samples';
import { pastTheWindow } from '../model/settle';
import { verify } from '../model/views';
import { recordPath } from '../rules/resources';

/**
 * What holds whatever else happens: updates sent at once (each acknowledged one is kept, in any
 * order the model allows), reads (they change nothing the document ties to updates), ids (one
 * record's for ever) and the list parameters in pairs (each keeps its meaning beside the other).
 */
useCleanup();

async function contact(ops: Operations, label: string, displayName?: string): Promise<string> {
  const done = await ops.createContact(label, displayName);
  mustSucceed(done, 'contacts.create', 'creating a contact');
  return done.id!;
}

async function message(ops: Operations, contactId: string, label: string, file?: string): Promise<string> {
  const done = await ops.sendMessage(ops.model.contacts.get(contactId)!.conversationId, label, file);
  mustSucceed(done, file ? 'messages.send.attachments' : 'messages.send', 'sending a message');
  return done.id!;
}

rule(
  'messages.update.add-reaction',
  'reactions added at once by four users, under one name and under two, are all kept, in every view',
  async (t: RuleContext) => {
    const ops = new Operations();
    const owner = await contact(ops, 'parreact');
    const id = await message(ops, owner, 'parreact');
    const first = await ops.reactAny(id, 'par_first');
    if (!first) t.notRun('the server refused every reaction name the kit tried; allowed names are not shown');
    mustSucceed(first, 'messages.update.add-reaction', 'adding a reaction');
    const names = [first.name, ...reactionNames().filter((n) => n !== first.name)].slice(0, 2);
    const users = bySeed(['par_a', 'par_b', 'par_c', 'par_d']);
    const { exchanges, acked } = await parallelUpdates(
      ops.model,
      id,
      users.map((username, i) => ({ reaction: { name: names[i % names.length]!, username } })),
    );
    if (acked === 0)
      t.notRun('the server refused every update sent at once (an answer, with nothing to judge)');
    await afterBurst(exchanges, () => verify(ops.model, { contacts: [owner], messages: [id] }));
  },
);

rule(
  'messages.update.add-attachment',
  'attachments added at once by three updates are all kept, beside the one sent with the message, in every view',
  async (t: RuleContext) => {
    const ops = new Operations();
    const owner = await contact(ops, 'parfiles');
    const sent = await ops.sendMessage(ops.model.contacts.get(owner)!.conversationId, 'parfiles', 'par0.pdf');
    if (!sent.ok && sent.exchange.status < 500)
      t.notRun(`the server refused the kit's attachment (${sent.exchange.status}); its fields are not shown`);
    mustSucceed(sent, 'messages.send.attachments', 'sending an attachment');
    const { exchanges, acked } = await parallelUpdates(
      ops.model,
      sent.id!,
      bySeed(['par1.pdf', 'par2.pdf', 'par3.pdf']).map((attachment) => ({ attachment })),
    );
    if (acked === 0)
      t.notRun('the server refused every update sent at once (an answer, with nothing to judge)');
    await afterBurst(exchanges, () => verify(ops.model, { contacts: [owner], messages: [sent.id!] }));
  },
);

rule(
  'contacts.update.display-name',
  'four renames sent at once leave one of the names sent, the same in every view, and nothing else changed',
  async (t: RuleContext) => {
    const ops = new Operations();
    const id = await contact(ops, 'parname', 'Before Parallel');
    const other = await contact(ops, 'parnameother', 'Bystander');
    const names = bySeed(['Parallel Ann', 'Parallel Bo', 'Parallel Cy', 'Parallel Di']);
    const { exchanges, acked } = await parallelRenames(ops.model, id, names);
    if (acked === 0)
      t.notRun('the server refused every rename sent at once (an answer, with nothing to judge)');
    await afterBurst(exchanges, () => verify(ops.model, { contacts: [id, other] }));
  },
);

rule(
  'contacts.create',
  'four contacts created at once, then four messages sent at once into one conversation, are each made once, as sent, in every view',
  async () => {
    const ops = new Operations();
    const created = await Promise.all([0, 1, 2, 3].map((i) => ops.createContact(`parnew${i}`)));
    for (const done of created) mustSucceed(done, 'contacts.create', 'creating contacts at once');
    const ids = created.map((d) => d.id!);
    const conversation = ops.model.contacts.get(ids[0]!)!.conversationId;
    const sent = await Promise.all([0, 1, 2, 3].map((i) => ops.sendMessage(conversation, `parsend${i}`)));
    for (const done of sent) mustSucceed(done, 'messages.send', 'sending messages at once');
    await afterBurst(
      [...created, ...sent].map((d) => d.exchange),
      () => verify(ops.model, { contacts: ids, messages: sent.map((d) => d.id!) }),
    );
  },
);

rule(
  'messages.retrieve',
  'reads change nothing: after a record is read many times, by retrieve and in lists, every field the model holds is as it was (updated_at and display_name included)',
  async () => {
    const ops = new Operations();
    const owner = await contact(ops, 'reads', 'Read Many Times');
    const untouched = await message(ops, owner, 'reads');
    const changed = await message(ops, owner, 'readsupd');
    const reacted = await ops.reactAny(changed, 'reader_one');
    if (reacted) mustSucceed(reacted, 'messages.update.add-reaction', 'adding a reaction');
    mustSucceed(await ops.editMessage(changed, 'readsedit'), 'messages.update.edit-text', 'editing the text');
    const conversation = ops.model.contacts.get(owner)!.conversationId;
    for (let i = 0; i < 5; i++) {
      await send('GET', recordPath('contact', owner));
      await send('GET', recordPath('message', untouched));
      await send('GET', recordPath('message', changed));
      if (i % 2 === 0) {
        await send('GET', '/v1/messages', { query: { conversation_id: conversation } });
        await send('GET', '/v1/contacts');
      }
    }
    await verify(ops.model, { contacts: [owner], messages: [untouched, changed] });
  },
);

rule(
  'api.unique-ids',
  'a new contact or message never gets the id of one deleted before it, and that id answers no other record',
  async () => {
    const ops = new Operations();
    const first = await contact(ops, 'idsfirst');
    const doomed = await message(ops, first, 'idsdoomed');
    mustSucceed(await ops.deleteMessage(doomed), 'messages.delete.permanent', 'deleting the message');
    const next = await message(ops, first, 'idsnext');
    mustSucceed(await ops.deleteContact(first), 'contacts.delete', 'deleting the contact');
    // Each create checks that its id is new to the kit (model/operations.ts).
    const second = await contact(ops, 'idssecond');
    await message(ops, second, 'idssecond');
    await verify(ops.model, { contacts: [first, second], messages: [doomed, next], full: true });
  },
);

rule(
  'lists.limit',
  'limit beside conversation_id, walked with the paging parameter, and beside each value of active after that choice shown whole: the judge holds each page to its limit and to what the choice without it held',
  async () => {
    const ops = new Operations();
    await contact(ops, 'pairsother');
    const owner = await contact(ops, 'pairs');
    const conversation = ops.model.contacts.get(owner)!.conversationId;
    for (let i = 0; i < 5; i++) await message(ops, owner, `pairs${i}`);
    await pastTheWindow();
    // conversation_id + limit + the next-page parameter.
    await walk('/v1/messages', { conversation_id: conversation }, { limit: 2 });
    // active + limit: limit lowers how many, never which contacts active selects. Each alone
    // first: a pair refused is the fault of a parameter refused alone too.
    for (const active of ['true', 'false']) {
      await send('GET', '/v1/contacts', { query: { active } });
      await walk('/v1/contacts', { active }, { limit: 100 });
      await send('GET', '/v1/contacts', { query: { active, limit: 2 } });
    }
  },
);

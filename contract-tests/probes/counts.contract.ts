import { useCleanup } from '../model/data';
import { is4xx } from '../http/http';
import { mustSucceed, Operations, type Done } from '../model/operations';
import { RuleFailure, rule, type RuleContext } from '../model/harness';
import { reactionNames, REACTIONS } from '../model/samples';
import { verify } from '../model/views';

/**
 * Repetition and counts: the same operation twice, many items where the document allows many
 * (several reaction names, several users of one name, several attachments in one send or one
 * update), and a second item where one exists. Where the document does not say what a repeat
 * does (the same reaction twice by one user), kept once or twice are both right; only what is
 * lost fails, in every view (model/model.ts, model/views.ts).
 */
useCleanup();

/** Reaction names beyond the kit's usual ones, so that a message gets a dozen. */
const MORE_NAMES = ['wave', 'fire', 'clap', 'star', 'party'];

/** Whether the server took the update; a refusal (4xx) is an answer, anything else fails. */
function answered(done: Done, what: string): boolean {
  if (!done.ok && !is4xx(done.exchange))
    throw new RuleFailure(`${what} was answered ${done.exchange.status}`, done.exchange);
  return done.ok;
}

async function aMessage(ops: Operations, label: string): Promise<{ owner: string; id: string }> {
  const contact = await ops.createContact(label);
  mustSucceed(contact, 'contacts.create', 'creating a contact');
  const sent = await ops.sendMessage(ops.model.contacts.get(contact.id!)!.conversationId, label);
  mustSucceed(sent, 'messages.send', 'sending a message');
  return { owner: contact.id!, id: sent.id! };
}

rule(
  'messages.update.add-reaction',
  'the same reaction twice by one user loses nothing; a dozen users under one name, a dozen names, and several reactions in one update are all kept, in every view',
  async (t: RuleContext) => {
    const ops = new Operations();
    const { owner, id } = await aMessage(ops, 'repeat');
    const first = await ops.reactAny(id, 'repeat_a');
    if (!first) t.notRun('the server refused every reaction name the kit tried; allowed names are not shown');
    mustSucceed(first, 'messages.update.add-reaction', 'adding a reaction');
    // The same again: kept once or twice, or refused (an answer); never anything lost.
    const again = await ops.react(id, first.name, 'repeat_a');
    if (!again.ok && !is4xx(again.exchange))
      throw new RuleFailure(`the same reaction again was answered ${again.exchange.status}`, again.exchange);
    for (const user of ['repeat_b', 'repeat_c'])
      mustSucceed(await ops.react(id, first.name, user), 'messages.update.add-reaction', 'another user');
    // Nine more users of that name in one update: a dozen in all (a server may refuse so many: an answer).
    const users = 'defghijkl'.split('').map((c) => ({ name: first.name, username: `repeat_${c}` }));
    answered(await ops.updateParts(id, { reactions: users }), 'nine users in one update');
    // A username with capitals: kept as sent (a server may refuse it: an answer).
    answered(await ops.react(id, first.name, 'Repeat_McKay'), 'a user with capitals');
    // Every other name the kit knows, and more: a dozen names in all. Those refused are the
    // server's choice (2.5).
    const names = [...new Set([...reactionNames(), ...REACTIONS, ...MORE_NAMES])].filter(
      (n) => n !== first.name,
    );
    const taken: string[] = [first.name];
    for (const name of names)
      if (answered(await ops.react(id, name, 'repeat_a'), `the reaction ${name}`)) taken.push(name);
    // Two names at once, each by a new user, in one update.
    if (taken.length > 1)
      answered(
        await ops.updateParts(id, {
          reactions: taken.slice(0, 2).map((name) => ({ name, username: 'repeat_m' })),
        }),
        'two reactions in one update',
      );
    await verify(ops.model, { contacts: [owner], messages: [id] });
  },
);

rule(
  'messages.send.attachments',
  'a message sent with six attachments (or, if the server refuses so many, three) carries them all, in every view',
  async (t: RuleContext) => {
    const ops = new Operations();
    const contact = await ops.createContact('manyfiles');
    mustSucceed(contact, 'contacts.create', 'creating a contact');
    const conversation = ops.model.contacts.get(contact.id!)!.conversationId;
    const files = (n: number) => Array.from({ length: n }, (_, i) => `many${i + 1}.pdf`);
    let sent = await ops.sendMessage(conversation, 'manyfiles', files(6));
    // How many attachments a message may carry is not shown: six refused, three are tried.
    if (!sent.ok && is4xx(sent.exchange)) sent = await ops.sendMessage(conversation, 'manyfiles', files(3));
    if (!sent.ok) {
      if (!is4xx(sent.exchange)) mustSucceed(sent, 'messages.send.attachments', 'sending attachments');
      t.notRun(`the server refused a message with three attachments (${sent.exchange.status})`);
    }
    await verify(ops.model, { contacts: [contact.id!], messages: [sent.id!] });
  },
);

rule(
  'messages.update.add-attachment',
  'two attachments in one update, then one more, are all added to the one sent with the message, in every view',
  async (t: RuleContext) => {
    const ops = new Operations();
    const contact = await ops.createContact('updfiles');
    mustSucceed(contact, 'contacts.create', 'creating a contact');
    const conversation = ops.model.contacts.get(contact.id!)!.conversationId;
    const sent = await ops.sendMessage(conversation, 'updfiles', 'upd0.pdf');
    if (!sent.ok && is4xx(sent.exchange))
      t.notRun(`the server refused the kit's attachment (${sent.exchange.status}); its fields are not shown`);
    mustSucceed(sent, 'messages.send.attachments', 'sending an attachment');
    const two = await ops.updateParts(sent.id!, { attachment: ['upd1.pdf', 'upd2.pdf'] });
    if (!two.ok && !is4xx(two.exchange))
      mustSucceed(two, 'messages.update.add-attachment', 'adding two attachments');
    const more = await ops.attach(sent.id!, 'upd3.pdf');
    // An update with an attachment alone refused: the optional parameters' test judges that.
    if (!more.ok && is4xx(more.exchange))
      t.notRun(`the server refused an update with an attachment alone (${more.exchange.status})`);
    mustSucceed(more, 'messages.update.add-attachment', 'adding one more attachment');
    await verify(ops.model, { contacts: [contact.id!], messages: [sent.id!] });
  },
);

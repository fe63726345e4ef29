import { messageText, useCleanup } from './lib/data';
import { is4xx, type Exchange } from './lib/http';
import { mustSucceed, Operations, type Done } from './lib/operations';
import { RuleFailure, type RuleContext, rule } from './lib/harness';
import { avatarSample, phoneFor, reactionNames } from './lib/samples';
import { verify } from './lib/views';

/**
 * The document's input space. Every combination of the optional parameters of create and update
 * is sent once and checked by the model in every view; a request refused only because an optional
 * parameter was left out fails the operation's rule ("optional …"), a value the server does not
 * take is not a failure. And what is sent comes back: values of several lengths and scripts,
 * compared in every view, where only lossless changes are accepted (judge/fields.ts).
 */
useCleanup();

const start = () => new Operations();

async function owner(
  ops: Operations,
  label: string,
): Promise<{ id: string; conversation: string; username: string }> {
  const done = await ops.createContact(label);
  mustSucceed(done, 'contacts.create', 'creating a contact');
  const contact = ops.model.contacts.get(done.id!)!;
  return {
    id: contact.id,
    conversation: contact.conversationId,
    username: String(contact.fields.username!.value),
  };
}

/**
 * Judges the combinations tried: one refused while a combination with more of the same optional
 * parameters was taken was refused for leaving one out. Returns what was refused for its values.
 */
function judgeCombinations(
  tried: { parts: string[]; done: Done }[],
  ruleOf: (parts: string[]) => string,
  what: string,
): string[] {
  const refusedValues: string[] = [];
  for (const { parts, done } of tried) {
    if (done.ok) continue;
    if (!is4xx(done.exchange))
      throw new RuleFailure(
        `${what} with ${parts.join(' and ') || 'nothing'} answered ${done.exchange.status}`,
        done.exchange,
        { rule: ruleOf(parts), check: 'accepted' },
      );
    const fuller = tried.find(
      (t) => t.done.ok && parts.every((p) => t.parts.includes(p)) && t.parts.length > parts.length,
    );
    if (fuller) {
      const missing = fuller.parts.filter((p) => !parts.includes(p));
      throw new RuleFailure(
        `${what} with ${parts.join(' and ') || 'no parameter'} was refused (${done.exchange.status}), but taken with ${missing.join(' and ')} too: the document calls ${missing.map((m) => `\`${m}\``).join(' and ')} optional`,
        done.exchange,
        { rule: ruleOf(parts), check: `optional ${missing.join(', ')}` },
      );
    }
    refusedValues.push(`${parts.join('+') || 'nothing'} (${done.exchange.status})`);
  }
  return refusedValues;
}

rule(
  'contacts.create',
  'every combination of the optional avatar_url and display_name is taken, and shown as sent in every view',
  async (t: RuleContext) => {
    const ops = start();
    const avatar = avatarSample();
    const combos: string[][] = [
      [],
      ['display_name'],
      ...(avatar ? [['avatar_url'], ['avatar_url', 'display_name']] : []),
    ];
    const tried: { parts: string[]; done: Done }[] = [];
    for (const parts of combos) {
      const done = await ops.createContact(
        `opt${parts.length}`,
        parts.includes('display_name') ? `Optional ${parts.length}` : undefined,
        {
          avatar_url: parts.includes('avatar_url') ? avatar : undefined,
        },
      );
      tried.push({ parts, done });
    }
    const refused = judgeCombinations(tried, () => 'contacts.create', 'a contact create');
    const made = tried.filter((x) => x.done.ok).map((x) => x.done.id!);
    if (made.length === 0) t.notRun(`the server refused every combination: ${refused.join(', ')}`);
    await verify(ops.model, { contacts: made });
  },
);

rule(
  'contacts.update.display-name',
  'an update with no parameter at all is taken (display_name is optional) and changes nothing; with display_name alone it renames',
  async () => {
    const ops = start();
    const { id } = await owner(ops, 'noparam');
    const empty = await ops.renameContact(id, undefined);
    const named = await ops.renameContact(id, 'Renamed After Nothing');
    mustSucceed(named, 'contacts.update.display-name', 'renaming');
    if (!empty.ok)
      throw new RuleFailure(
        `an update with no parameter was refused (${empty.exchange.status}), but one with display_name was taken: the document calls \`display_name\` optional`,
        empty.exchange,
        { check: 'optional display_name' },
      );
    await verify(ops.model, { contacts: [id] });
  },
);

rule(
  'messages.send',
  'a message is taken with and without the optional attachments, and shown as sent in every view',
  async (t: RuleContext) => {
    const ops = start();
    const { id, conversation } = await owner(ops, 'sendopt');
    const tried = [
      { parts: ['message'], done: await ops.sendMessage(conversation, 'plain') },
      {
        parts: ['message', 'attachments'],
        done: await ops.sendMessage(conversation, 'attached', 'sent.pdf'),
      },
    ];
    const refused = judgeCombinations(tried, () => 'messages.send', 'a message');
    if (refused.length === tried.length) t.notRun(`the server refused every message: ${refused.join(', ')}`);
    await verify(ops.model, {
      contacts: [id],
      messages: tried.filter((x) => x.done.ok).map((x) => x.done.id!),
    });
  },
);

const PART_RULE: Record<string, string> = {
  message: 'messages.update.edit-text',
  reactions: 'messages.update.add-reaction',
  attachments: 'messages.update.add-attachment',
};

rule(
  'messages.update.keeps-the-rest',
  'every non-empty combination of message, reactions and attachments is taken by an update, and each changes only what it sends',
  async (t: RuleContext) => {
    const ops = start();
    const { id: contactId, conversation } = await owner(ops, 'updopt');
    const name = reactionNames()[0]!;
    const subsets = [
      ['message'],
      ['reactions'],
      ['attachments'],
      ['message', 'reactions'],
      ['message', 'attachments'],
      ['reactions', 'attachments'],
      ['message', 'reactions', 'attachments'],
    ];
    const tried: { parts: string[]; done: Done }[] = [];
    let n = 0;
    for (const parts of subsets) {
      n += 1;
      // A fresh message each: what one combination does is told apart from what earlier ones left.
      const sent = await ops.sendMessage(conversation, `subset${n}`);
      mustSucceed(sent, 'messages.send', 'sending a message');
      const id = sent.id!;
      const done = await ops.updateParts(id, {
        ...(parts.includes('message') ? { message: messageText(`subset${n}`) } : {}),
        ...(parts.includes('reactions') ? { reaction: { name, username: `reactor_${n}` } } : {}),
        ...(parts.includes('attachments') ? { attachment: `subset${n}.pdf` } : {}),
      });
      tried.push({ parts, done });
      if (done.ok) await verify(ops.model, { contacts: [contactId], messages: [id] });
    }
    const refused = judgeCombinations(tried, (parts) => PART_RULE[parts[0]!]!, 'a message update');
    if (refused.length === tried.length) t.notRun(`the server refused every update: ${refused.join(', ')}`);
  },
);

/** Texts that a careless server changes: lengths around common limits, scripts, ends, escapes. */
const TEXTS = [
  'Crème brûlée à la carte, déjà vu, naïve façade',
  '你好，世界。今日は良い天気ですね',
  '👍🏽 family: 👨‍👩‍👧 party 🎉',
  'مرحبا بالعالم · שלום עולם',
  '  spaced at both ends  ',
  'e\u0301te\u0301 in two code points',
  '<b>Tom & "Jerry"</b> it\'s 100% \\ ok',
  'line one\nline two\ttabbed',
  'MiXeD CaSe StAyS',
  'x'.repeat(199),
  'y'.repeat(201),
  'z'.repeat(256),
  'long '.repeat(200).trim(),
  'Lorem ipsum dolor sit amet. '.repeat(110).trim(),
];

async function roundTrip(
  t: RuleContext,
  values: string[],
  apply: (value: string, i: number) => Promise<Done>,
  focus: () => Promise<void>,
): Promise<void> {
  const refused: Exchange[] = [];
  for (const [i, value] of values.entries()) {
    const done = await apply(value, i);
    if (!done.ok) {
      if (!is4xx(done.exchange))
        throw new RuleFailure(`a value was answered ${done.exchange.status}`, done.exchange);
      refused.push(done.exchange);
    }
  }
  if (refused.length === values.length)
    t.notRun(`the server refused every value the kit tried (${refused[0]!.status})`);
  await focus();
}

rule(
  'messages.send',
  'texts of several lengths and scripts come back as sent (or changed losslessly), in every view',
  async (t) => {
    const ops = start();
    const { id, conversation } = await owner(ops, 'texts');
    const made: string[] = [];
    await roundTrip(
      t,
      TEXTS,
      async (text) => {
        const done = await ops.sendMessage(conversation, 'text', undefined, text);
        if (done.ok) made.push(done.id!);
        return done;
      },
      () => verify(ops.model, { contacts: [id], messages: made }),
    );
  },
);

rule(
  'messages.update.edit-text',
  'edited texts of several lengths and scripts come back as sent, in every view',
  async (t) => {
    const ops = start();
    const { id: contactId, conversation } = await owner(ops, 'edits');
    const sent = await ops.sendMessage(conversation, 'to edit');
    mustSucceed(sent, 'messages.send', 'sending a message');
    await roundTrip(
      t,
      TEXTS.filter((_, i) => i % 2 === 0),
      (text) => ops.editMessage(sent.id!, 'edit', text),
      () => verify(ops.model, { contacts: [contactId], messages: [sent.id!] }),
    );
  },
);

rule(
  'contacts.create',
  'display names, phone numbers and avatar URLs in several forms come back as sent (or changed losslessly), in every view',
  async (t) => {
    const ops = start();
    const made: string[] = [];
    const names = [
      'Zoë Ångström-Núñez',
      '山田 太郎',
      'محمد علي',
      '  Padded Name  ',
      'ALL CAPS name',
      'Émile 🎨 Zola',
    ];
    const phones = ['+1 555 010 2783', '+1 (555) 010-2783', '+1.555.010.2783', '+44 20 7946 0958'].map(
      (p, i) => phoneFor(40 + i, p),
    );
    const avatar = avatarSample();
    const avatars = avatar ? [`${avatar}?size=128&v=2`, avatar.replace(/\.png$/i, '.PNG')] : [];
    const tries: Record<string, string>[] = [
      ...names.map((display_name) => ({ display_name })),
      ...phones.map((phone_number) => ({ phone_number })),
      ...avatars.map((avatar_url) => ({ avatar_url })),
    ];
    await roundTrip(
      t,
      tries.map((x) => JSON.stringify(x)),
      async (json, i) => {
        const extra = JSON.parse(json) as Record<string, string>;
        const done = await ops.createContact(`forms${i}`, extra.display_name, extra);
        if (done.ok) made.push(done.id!);
        return done;
      },
      () => verify(ops.model, { contacts: made }),
    );
  },
);

rule(
  'contacts.update.display-name',
  'new display names in several scripts come back as sent, in every view',
  async (t) => {
    const ops = start();
    const { id } = await owner(ops, 'renames');
    await roundTrip(
      t,
      ['Ünïcödé Rename', '李小龍', 'Nombre  con  espacios', "O'Brien & Sons <Ltd>", 'e\u0301mile'],
      (name) => ops.renameContact(id, name),
      () => verify(ops.model, { contacts: [id] }),
    );
  },
);

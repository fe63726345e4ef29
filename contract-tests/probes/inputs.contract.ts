import { messageText, useCleanup } from '../model/data';
import { is4xx, type Exchange } from '../http/http';
import { mustSucceed, Operations, type Done } from '../model/operations';
import { RuleFailure, type RuleContext, rule } from '../model/harness';
import { avatarSample, contactValue, phoneFor, reactionNames, usernameStyle } from '../model/samples';
import { CONTACT_FIELDS, inWords, optionalOf, updatedWith } from '../rules/resources';
import { LONGEST, longValue, probeUpward, VALUE_CLASSES } from './values';
import { observe } from '../profile/choices';
import { config } from '../http/config';
import { verify } from '../model/views';
import { mapAtOnce } from '../http/at-once';

/**
 * The document's input space. Every combination of the optional parameters of create and update
 * is sent once and checked by the model in every view; a request refused only because an optional
 * parameter was left out fails the operation's rule ("optional …"), a value the server does not
 * take is not a failure. And what is sent comes back: values of several lengths and scripts,
 * compared in every view, where only lossless changes are accepted (rules/fields.ts).
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

/** Every subset of `items`, the smaller first (the empty one first of all), each in the order of `items`. */
const subsets = (items: readonly string[]): string[][] =>
  items
    .reduce<string[][]>((all, item) => [...all, ...all.map((some) => [...some, item])], [[]])
    .sort((a, b) => a.length - b.length);

/** The optional attributes of a create, and the attributes of an update (rules/resources.ts). */
const CREATE_OPTIONAL = optionalOf(CONTACT_FIELDS);
const UPDATES = updatedWith(CONTACT_FIELDS);

rule(
  'contacts.create',
  `every combination of the optional ${inWords(CREATE_OPTIONAL)} is taken, and shown as sent in every view`,
  async (t: RuleContext) => {
    const ops = start();
    const optional = CREATE_OPTIONAL.filter((field) => contactValue(field, 'x') !== undefined);
    const tried: { parts: string[]; done: Done }[] = [];
    for (const parts of subsets(optional)) {
      const form = Object.fromEntries(
        optional.map((field) => [
          field,
          parts.includes(field) ? contactValue(field, `Optional ${parts.length}`) : undefined,
        ]),
      );
      tried.push({ parts, done: await ops.createContact(`opt${parts.length}`, undefined, form) });
    }
    const refused = judgeCombinations(tried, () => 'contacts.create', 'a contact create');
    const made = tried.filter((x) => x.done.ok).map((x) => x.done.id!);
    if (made.length === 0) t.notRun(`the server refused every combination: ${refused.join(', ')}`);
    await verify(ops.model, { contacts: made });
  },
);

rule(
  'contacts.update.display-name',
  `an update with no parameter at all is taken (each of ${inWords(UPDATES)} is optional) and changes nothing; with each alone it changes that`,
  async () => {
    const ops = start();
    const { id } = await owner(ops, 'noparam');
    const empty = await ops.renameContact(id, undefined);
    const named = await ops.renameContact(id, 'After Nothing');
    mustSucceed(named, 'contacts.update.display-name', 'renaming');
    if (!empty.ok)
      throw new RuleFailure(
        `an update with no parameter was refused (${empty.exchange.status}), but one with display_name was taken: the document calls \`display_name\` optional`,
        empty.exchange,
        { check: 'optional display_name' },
      );
    // Each other attribute an update takes, alone.
    for (const field of UPDATES.filter((name) => name !== 'display_name')) {
      const value = contactValue(field, 'After Nothing');
      if (value !== undefined)
        mustSucceed(
          await ops.updateContact(id, { [field]: value }),
          'contacts.update.display-name',
          `updating ${field}`,
        );
    }
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
    const tried: { parts: string[]; done: Done }[] = [];
    let n = 0;
    for (const parts of subsets(['message', 'reactions', 'attachments']).slice(1)) {
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

/** Values the server refused: an answer, never a failure; a 5xx is the operation's failure. */
function refusedOrFailed(done: Done, refused: Exchange[]): boolean {
  if (done.ok) return false;
  if (!is4xx(done.exchange))
    throw new RuleFailure(`a value was answered ${done.exchange.status}`, done.exchange);
  refused.push(done.exchange);
  return true;
}

/** Requests of one probe that wait on no other's answer: a few at a time (http/at-once.ts). */
const atOnce = (tasks: (() => Promise<void>)[]) => mapAtOnce(tasks, (task) => task());

/**
 * Every class of value (probes/values.ts), and long values probed upward, sent through `apply`:
 * the long ones a chain (each waits for the answer to the one before), each class on its own.
 * Returns those tasks, to be run a few at a time, and how many values the server took.
 */
function everyClass(
  what: string,
  apply: (value: string, label: string) => Promise<Done>,
  long: { start: number; make: (length: number) => string },
  extra: string[] = [],
): { tasks: (() => Promise<void>)[]; taken: () => number } {
  const refused: Exchange[] = [];
  let taken = 0;
  const probe = async () => {
    const probed = await probeUpward(long.start, (length) => apply(long.make(length), `long${length}`));
    observe(
      `longest ${what} taken`,
      probed.refused === undefined
        ? `${LONGEST} characters or more`
        : probed.taken.length > 0
          ? `${Math.max(...probed.taken)} characters (${probed.refused} refused)`
          : `under ${probed.refused} characters`,
    );
    taken += probed.taken.length;
  };
  const classes = [...VALUE_CLASSES.map((c) => c.value), ...extra].map((value, i) => async () => {
    if (!refusedOrFailed(await apply(value, `class${i}`), refused)) taken += 1;
  });
  // The chain first: it is the longest wait.
  return { tasks: [probe, ...classes], taken: () => taken };
}

const noneTaken = (t: RuleContext, taken: number, what: string) => {
  if (taken === 0) t.notRun(`the server refused every ${what} the kit tried`);
};

rule(
  'messages.send',
  'every class of text (scripts, emoji, right-to-left, combining marks, form characters, newlines) and long texts probed upward come back as sent, in every view',
  async (t) => {
    const ops = start();
    const { id, conversation } = await owner(ops, 'texts');
    const made: string[] = [];
    const texts = everyClass(
      'message text',
      async (text, label) => {
        const done = await ops.sendMessage(conversation, label, undefined, `${config.runId} ${text}`);
        if (done.ok) made.push(done.id!);
        return done;
      },
      // The text sent is the run id, a space and this: as long as the probe says in all.
      { start: 125, make: (length) => longValue('', length - config.runId.length - 1) },
    );
    await atOnce(texts.tasks);
    noneTaken(t, texts.taken(), 'text');
    await verify(ops.model, { contacts: [id], messages: made });
  },
);

rule(
  'messages.update.edit-text',
  'every class of text and long texts probed upward are taken by an edit as sent, in every view; the longest then takes two reactions',
  async (t) => {
    const ops = start();
    const { id: contactId, conversation } = await owner(ops, 'edits');
    const edited: string[] = [];
    const longest = { id: '', length: 0 };
    const edits = everyClass(
      'edited text',
      async (text, label) => {
        // A fresh message each: the probe of the edit is the edit's own, not the send's.
        const sent = await ops.sendMessage(conversation, `to edit ${label}`);
        mustSucceed(sent, 'messages.send', 'sending a message');
        const done = await ops.editMessage(sent.id!, label, `${config.runId} ${text}`);
        edited.push(sent.id!);
        if (done.ok && text.length > longest.length)
          Object.assign(longest, { id: sent.id!, length: text.length });
        return done;
      },
      // The text sent is the run id, a space and this: as long as the probe says in all.
      { start: 125, make: (length) => longValue('', length - config.runId.length - 1) },
    );
    await atOnce(edits.tasks);
    noneTaken(t, edits.taken(), 'edited text');
    await verify(ops.model, { contacts: [contactId], messages: edited });
    // Then the message with the longest text taken keeps what an update adds, as any other: two
    // reactions, the second beside the first.
    const first = await ops.reactAny(longest.id, 'long_reactor_a');
    if (!first || refusedOrFailed(first, [])) return;
    if (refusedOrFailed(await ops.react(longest.id, first.name, 'long_reactor_b'), [])) return;
    await verify(ops.model, { contacts: [contactId], messages: [longest.id] });
  },
);

rule(
  'contacts.create',
  'every class of value in username, display_name and avatar_url, and long ones probed upward, come back as sent in every view, in the sender of a message too',
  async (t) => {
    const ops = start();
    const made: string[] = [];
    const messages: string[] = [];
    const create = async (label: string, extra: Record<string, string>, withMessage: boolean) => {
      const done = await ops.createContact(label, extra.display_name, extra);
      if (!done.ok) return done;
      made.push(done.id!);
      if (withMessage) {
        // A message's contact shows the sender's username and avatar_url (2.2).
        const sent = await ops.sendMessage(ops.model.contacts.get(done.id!)!.conversationId, label);
        mustSucceed(sent, 'messages.send', 'sending a message');
        messages.push(sent.id!);
      }
      return done;
    };
    const separator = usernameStyle();
    const usernames = everyClass(
      'username',
      (value, label) => create(label, { username: `${config.runId}${separator}${value}` }, true),
      {
        start: 16,
        make: (length) => longValue(`${config.runId}${separator}`, length, 'abcdefghij0123456789'),
      },
    );
    // An empty display_name where it is optional: empty, null or the username (model.ts).
    const names = everyClass(
      'display_name',
      (display_name, label) => create(label, { display_name }, false),
      { start: 16, make: (length) => longValue('Name ', length) },
      [''],
    );
    const refused: Exchange[] = [];
    const avatars: (() => Promise<void>)[] = [];
    const avatar = avatarSample();
    if (avatar) {
      const forms = [
        `${avatar}?size=128&v=2+3&q=%5Bx%5D`,
        `${avatar}#top`,
        avatar.replace(/\.png$/i, '.PNG'),
        `${avatar}?name=Zo%C3%AB%20%F0%9F%8E%89`,
        avatar.replace(/^https:/i, 'http:'),
        '',
      ];
      avatars.push(async () => {
        await probeUpward(64, (length) =>
          create(
            `avatarlong${length}`,
            { avatar_url: longValue(`${avatar}?q=`, length, 'abcdefghij0123456789') },
            true,
          ),
        );
      });
      for (const [i, avatar_url] of forms.entries())
        avatars.push(async () => {
          refusedOrFailed(await create(`avatar${i}`, { avatar_url }, true), refused);
        });
    }
    // Phone numbers in several forms: a lossless normalization (digits and the + kept) is taken.
    const phones = [
      '+1 555 010 2783',
      '+1 (555) 010-2783',
      '+1.555.010.2783',
      '+44 20 7946 0958',
      '15550102783',
    ].map((phone, i) => async () => {
      refusedOrFailed(await create(`phone${i}`, { phone_number: phoneFor(40 + i, phone) }, false), refused);
    });
    // Every value stands alone: the three chains first, then each single value.
    const chains = [usernames.tasks[0]!, names.tasks[0]!, ...avatars.slice(0, 1)];
    await atOnce([
      ...chains,
      ...usernames.tasks.slice(1),
      ...names.tasks.slice(1),
      ...avatars.slice(1),
      ...phones,
    ]);
    noneTaken(t, made.length, 'value');
    await verify(ops.model, { contacts: made, messages });
  },
);

rule(
  'contacts.update.display-name',
  'every class of display_name, empty, and long ones probed upward are taken by an update as sent, in every view',
  async (t) => {
    // Each rename is read back in every view before the next: one after another, since a write
    // of the kit's while it walks a list would move the walk (http/stillness.ts).
    const ops = start();
    const { id } = await owner(ops, 'renames');
    const renames = everyClass(
      'new display_name',
      async (name) => {
        const done = await ops.renameContact(id, name);
        if (done.ok) await verify(ops.model, { contacts: [id] });
        return done;
      },
      { start: 16, make: (length) => longValue('Renamed ', length) },
      ['', "O'Brien & Sons <Ltd>"],
    );
    for (const task of renames.tasks) await task();
    noneTaken(t, renames.taken(), 'display_name');
  },
);

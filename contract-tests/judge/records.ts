import { reactionsOf } from '../model/model';
import { isObject, type Json, type Reading } from '../http/exchange';
import { itemsOf, sentAttachments, sentReactions } from './session';
import { idOf } from './pages';
import {
  CONTACT_STABLE,
  CONTACT_UPDATES,
  type ContactFacts,
  type MessageFacts,
  type SessionState,
  type World,
} from './state';
import { contactFieldRules, mockMessage, badId, otherKind, notSeconds, notNow } from './conventions';
import {
  CONTACT,
  kept,
  MESSAGE,
  nonIntegerTimestamps,
  problems,
  reactionsShape,
  SENDER,
  SENDER_FORBIDDEN,
  sameValue,
} from '../rules/fields';
import {
  CONTACT_FIELDS,
  createdWith,
  requiredOf,
  sentOf,
  updatedWith,
  type SentKind,
} from '../rules/resources';
import { routeId, show, where, type Problem, type Verdicts } from './verdicts';
import { newIds } from './identity';

/**
 * The records in one answer: their fields, what the request sent against what the answer shows,
 * and what earlier exchanges of the same token make certain (a record deleted, a field no
 * operation changes).
 */

/**
 * A value sent that the answer lost or changed: the kit's own rule of what a server may do to what
 * it took (rules/fields.ts kept(): only NFC, trimmed ends and phone punctuation lose nothing).
 */
function lost(given: unknown, shown: unknown, kind: SentKind, what: string): Problem {
  // A JSON body may send a boolean as itself; a form sends its text.
  const sent = typeof given === 'boolean' && kind === 'boolean' ? String(given) : given;
  return (
    typeof sent === 'string' &&
    sent !== '' &&
    kept(sent, shown, kind) === 'lost' &&
    `sent ${what} ${show(given)}, the answer has ${show(shown)}`
  );
}

/** What a contact's create and update must show as sent (rules/resources.ts). */
const CREATE_KEEPS = sentOf(CONTACT_FIELDS, createdWith(CONTACT_FIELDS));
const UPDATE_KEEPS = sentOf(CONTACT_FIELDS, updatedWith(CONTACT_FIELDS));
const CONTACT_REQUIRED = requiredOf(CONTACT_FIELDS);

export function contactRecord(
  v: Verdicts,
  state: SessionState,
  item: Json,
  at: string,
  skip: string[] = [],
): void {
  v.check('contacts.fields', ...problems(item, CONTACT, skip).map((p) => where(at, p)));
  v.check(
    'api.integer-timestamps',
    ...nonIntegerTimestamps(item, 'contact').map((p) => where(at, `${p} is not an integer`)),
  );
  if (!v.has('mock.ids')) return;
  v.check(
    'mock.ids',
    ...[item.id, item.conversation_id].map((id) => badId(id, at)),
    otherKind(state, item.id, 'contact', at),
  );
  v.check('mock.unix-seconds', ...notSeconds(item, ['created_at', 'last_active_at'], at));
}

export function messageRecord(
  v: Verdicts,
  item: Json,
  at: string,
  state: SessionState,
  world: World | undefined,
): void {
  v.check('messages.fields', ...problems(item, MESSAGE).map((p) => where(at, p)));
  v.check(
    'api.integer-timestamps',
    ...nonIntegerTimestamps(item, 'message').map((p) => where(at, `${p} is not an integer`)),
  );
  v.check('messages.reactions-shape', ...reactionsShape(item.reactions).map((p) => where(at, p)));
  const sender = item.contact;
  if (isObject(sender)) {
    v.check(
      'messages.contact-fields',
      ...problems(sender, SENDER).map((p) => where(`${at}'s contact`, p)),
      ...SENDER_FORBIDDEN.filter((field) => field in sender).map((field) =>
        where(`${at}'s contact`, `carries ${field} (${show(sender[field])})`),
      ),
    );
    const owner =
      typeof item.conversation_id === 'string' ? world?.owners.get(item.conversation_id) : undefined;
    if (owner !== undefined)
      v.check(
        'messages.contact-is-sender',
        String(sender.id) !== owner &&
          where(
            at,
            `its contact is ${show(sender.id)}, but conversation ${item.conversation_id as string} belongs to contact ${owner}`,
          ),
      );
  }
  if (!v.has('mock.ids')) return;
  mockMessage(v, item, at, state, world);
}

export function createdContact(
  v: Verdicts,
  reading: Reading,
  body: Json,
  state: SessionState,
  world: World | undefined,
): void {
  const params = reading.params;
  // conversation_id on a create answer is its own rule; the other fields are contacts.fields.
  contactRecord(v, state, body, 'the created contact', ['conversation_id']);
  // One conversation with each contact (section 1): not one another contact, alive, holds.
  const holder =
    typeof body.conversation_id === 'string' ? world?.owners.get(body.conversation_id) : undefined;
  v.check(
    'contacts.create.conversation-id',
    (typeof body.conversation_id !== 'string' || body.conversation_id === '') &&
      `the created contact has conversation_id ${show(body.conversation_id)}`,
    holder !== undefined &&
      holder !== idOf(body) &&
      !world?.goneContacts.has(holder) &&
      `the created contact ${idOf(body)} has conversation_id ${show(body.conversation_id)}, the conversation of the contact ${holder}`,
  );
  v.check(
    'contacts.create.last-active-at-null',
    body.last_active_at !== null && `the created contact has last_active_at ${show(body.last_active_at)}`,
  );
  if (params === undefined) return;
  v.check(
    'contacts.create.requires-username-and-phone-number',
    ...CONTACT_REQUIRED.map(
      (key) => !(key in params) && `a create without ${key} answered ${reading.exchange.status}`,
    ),
  );
  v.check(
    'contacts.create',
    ...CREATE_KEEPS.map(([field, kind]) => lost(params[field], body[field], kind, field)),
  );
  if (typeof params.username === 'string') {
    if (!('display_name' in params))
      v.check(
        'contacts.create.display-name-defaults-to-username',
        body.display_name !== params.username &&
          `created without display_name, the answer has display_name ${show(body.display_name)} (the username is ${show(params.username)})`,
      );
  }
  if (v.has('mock.field-rules')) {
    v.check('mock.unix-seconds', notNow(body.created_at, reading, 'the created contact'));
    contactFieldRules(v, params, body, 'create');
  }
}

export function updatedContact(
  v: Verdicts,
  reading: Reading,
  body: Json,
  known: ContactFacts | undefined,
): void {
  const params = reading.params;
  if (params === undefined) return;
  v.check(
    'contacts.update.display-name',
    idOf(body) !== routeId(reading) && `updated ${routeId(reading)}, answered ${show(body.id)}`,
    ...UPDATE_KEEPS.map(([field, kind]) => lost(params[field], body[field], kind, field)),
  );
  if (known) {
    const applied: Problem[] = [];
    const moved: Problem[] = [];
    for (const field of CONTACT_STABLE) {
      const before = known.stable[field];
      if (before === undefined || !(field in body)) continue;
      if (field in params)
        applied.push(
          !sameValue(body[field], before) &&
            String(body[field]) === String(params[field]) &&
            `sent ${field} ${show(params[field])}, and the update applied it (it was ${show(before)})`,
        );
      else
        moved.push(
          !sameValue(body[field], before) &&
            `${field} changed from ${show(before)} to ${show(body[field])}, though only ${CONTACT_UPDATES.join(' or ')} was sent`,
        );
    }
    // An update without one of the fields an update may change keeps its value learnt last, if no
    // update of it the session saw overlapped this one (the kit's updates sent at once all carry it).
    for (const field of CONTACT_UPDATES) {
      const before = known.updatable[field];
      const changedAt = known.changedAt[field];
      if (field in params || !(field in body) || before === undefined) continue;
      if (changedAt !== undefined && changedAt >= reading.exchange.startedAt) continue;
      moved.push(
        body[field] !== before &&
          `${field} changed from ${show(before)} to ${show(body[field])}, though no ${field} was sent`,
      );
    }
    if (Object.keys(params).some((key) => !CONTACT_UPDATES.includes(key)))
      v.check('contacts.update.only-display-name', ...applied);
    v.check('contacts.update.keeps-the-rest', ...moved);
  }
  if (v.has('mock.field-rules')) contactFieldRules(v, params, body, 'update');
}

export function sentMessage(v: Verdicts, reading: Reading, body: Json): void {
  const params = reading.params;
  v.check(
    'messages.send.new-message-defaults',
    body.read_at !== null && `the new message has read_at ${show(body.read_at)}`,
    body.updated_at !== null && `the new message has updated_at ${show(body.updated_at)}`,
    params !== undefined &&
      !('reactions' in params) &&
      Array.isArray(body.reactions) &&
      body.reactions.length > 0 &&
      `the new message has reactions ${show(body.reactions)}`,
    params !== undefined &&
      sentAttachments(params) === 0 &&
      Array.isArray(body.attachments) &&
      body.attachments.length > 0 &&
      `the new message has attachments ${show(body.attachments)}, though none were sent`,
  );
  if (v.has('mock.unix-seconds'))
    v.check('mock.unix-seconds', notNow(body.created_at, reading, 'the new message'));
  if (params === undefined) return;
  v.check(
    'messages.send.requires-conversation-id-and-message',
    ...['conversation_id', 'message'].map(
      (key) => !(key in params) && `a send without ${key} answered ${reading.exchange.status}`,
    ),
  );
  v.check(
    'messages.send',
    typeof params.conversation_id === 'string' &&
      body.conversation_id !== params.conversation_id &&
      `sent into ${show(params.conversation_id)}, the answer is in ${show(body.conversation_id)}`,
    lost(params.message, body.message, 'text', 'the text'),
  );
  const attachments = sentAttachments(params);
  if (attachments > 0)
    v.check(
      'messages.send.attachments',
      (!Array.isArray(body.attachments) || body.attachments.length !== attachments) &&
        `sent ${attachments} attachment(s), the answer has ${Array.isArray(body.attachments) ? body.attachments.length : show(body.attachments)}`,
    );
  if (v.has('mock.field-rules') && typeof params.message === 'string')
    v.check(
      'mock.field-rules',
      (params.message.length < 1 || params.message.length > 4000) &&
        `a message of ${params.message.length} characters was accepted (1–4000)`,
    );
}

export function updatedMessage(
  v: Verdicts,
  reading: Reading,
  body: Json,
  known: MessageFacts | undefined,
): void {
  const params = reading.params;
  if (params === undefined) return;
  const shown = reactionsOf(body.reactions);
  const sent = sentReactions(params);
  const added: Problem[] = [];
  const kept: Problem[] = [];
  if (typeof params.message === 'string')
    v.check('messages.update.edit-text', lost(params.message, body.message, 'text', 'the text'));
  else if (known && known.text !== undefined)
    kept.push(
      body.message !== known.text &&
        `the text changed from ${show(known.text)} to ${show(body.message)}, though none was sent`,
    );
  if (shown) {
    for (const [name, usernames] of sent)
      for (const username of usernames)
        added.push(
          !shown.get(name)?.has(username) &&
            `sent the reaction ${name} by ${username}; the answer does not show it`,
        );
    for (const [name, usernames] of known?.reactions ?? [])
      for (const username of usernames) {
        if (shown.get(name)?.has(username)) continue;
        (sent.has(name) ? added : kept).push(`the reaction ${name} by ${username} is gone after the update`);
      }
  }
  if (sent.size > 0) v.check('messages.update.add-reaction', ...added);
  const attachments = sentAttachments(params);
  const count = Array.isArray(body.attachments) ? body.attachments.length : undefined;
  if (attachments > 0 && count !== undefined)
    v.check(
      'messages.update.add-attachment',
      count < (known?.attachments ?? 0) + attachments &&
        `sent ${attachments} attachment(s) to a message that had ${known?.attachments ?? 'at least 0'}; the answer has ${count}`,
    );
  else if (known && count !== undefined)
    kept.push(
      count < known.attachments &&
        `the message had ${known.attachments} attachment(s), the answer to an update without any has ${count}`,
    );
  if (known) {
    kept.push(
      body.conversation_id !== known.conversationId &&
        `conversation_id changed from ${show(known.conversationId)} to ${show(body.conversation_id)}`,
      body.created_at !== known.createdAt &&
        `created_at changed from ${show(known.createdAt)} to ${show(body.created_at)}`,
      isObject(body.contact) &&
        known.senderId !== undefined &&
        body.contact.id !== known.senderId &&
        `the sender changed from ${show(known.senderId)} to ${show(body.contact.id)}`,
    );
    v.check('messages.update.keeps-the-rest', ...kept);
  }
  // "When the message was last updated": an update that changed it (new text, a reaction or an
  // attachment it did not have) leaves a time there, not the null of a message never updated.
  const changed =
    attachments > 0 ||
    (known !== undefined &&
      ((typeof params.message === 'string' && known.text !== undefined && params.message !== known.text) ||
        [...sent].some(([name, usernames]) =>
          [...usernames].some((username) => !known.reactions.get(name)?.has(username)),
        )));
  v.check(
    'messages.update.updated-at',
    changed && body.updated_at === null && `the update ${describeUpdate(params)} answered updated_at null`,
  );
  if (v.has('mock.updated-at'))
    v.check(
      'mock.updated-at',
      notNow(body.updated_at, reading, 'updated_at of the updated message'),
      typeof body.updated_at === 'number' &&
        typeof body.created_at === 'number' &&
        body.updated_at < body.created_at &&
        `updated_at ${body.updated_at} is before created_at ${body.created_at}`,
    );
}

/** What an update of a message sent, in words. */
function describeUpdate(params: Json): string {
  const parts = [
    typeof params.message === 'string' ? 'a new text' : '',
    sentReactions(params).size > 0 ? 'a reaction' : '',
    sentAttachments(params) > 0 ? 'an attachment' : '',
  ].filter(Boolean);
  return `that sent ${parts.join(' and ') || 'nothing'}`;
}

// ---- what earlier exchanges of this token make certain ----

export function views(
  v: Verdicts,
  reading: Reading,
  world: World,
  settleMs = 0,
  untouched: (id: string) => boolean = () => false,
): void {
  const started = reading.exchange.startedAt;
  const { contacts, messages } = itemsOf(reading);
  const isList = reading.route.kind === 'contacts' || reading.route.kind === 'messages';
  const viewRule = (single: string, listed: string) => (isList ? listed : single);
  // A list may show an update late too (--settle-ms): only what was written before the window is
  // sure to show there. Retrieve shows every write finished before the request.
  const settledBy = isList ? started - settleMs : started;
  // A list may show a delete late (--settle-ms); retrieve is never waited for.
  const deleted = (gone: Map<string, number>, id: string, wait = true) => {
    const at = gone.get(id);
    return at !== undefined && at <= (wait && isList ? started - settleMs : started);
  };
  const again = (rule: string, kind: string, items: Json[], gone: Map<string, number>) => {
    if (gone.size > 0)
      v.check(
        rule,
        ...items.map(
          (item) =>
            deleted(gone, idOf(item)) &&
            `${kind} ${idOf(item)} was deleted, and is ${isList ? 'listed' : 'answered'} again`,
        ),
      );
  };
  // A write's answer is judged against what it sent (a create's record is new: one the session
  // knows by its id is another record, see newIds); the views below hold what reads show.
  const written = reading.exchange.method === 'PUT' || reading.exchange.method === 'POST';
  if (reading.exchange.method === 'POST') newIds(v, reading, world, contacts, messages);
  else {
    again('contacts.delete', 'contact', contacts, world.goneContacts);
    again('messages.delete.permanent', 'message', messages, world.goneMessages);
  }
  // A cascade is an indirect effect: a deleted contact's messages may show for the settle window
  // wherever they are read, retrieve by id too (the contact the delete named is judged at once).
  // The mock's convention (C18) gives it no window: its messages go with the delete's answer.
  const cascaded = (conversationId: string, window: number) => {
    const at = world.goneConversations.get(conversationId);
    return at !== undefined && at <= started - window;
  };
  const leftBehind = (window: number) =>
    messages.map(
      (m) =>
        typeof m.conversation_id === 'string' &&
        cascaded(m.conversation_id, window) &&
        !deleted(world.goneMessages, idOf(m), false) &&
        `message ${idOf(m)} is in conversation ${m.conversation_id}, whose contact was deleted`,
    );
  if (world.goneConversations.size > 0) {
    v.check('contacts.delete.cascades-conversation', ...leftBehind(settleMs));
    if (v.has('mock.cascade-at-once')) v.check('mock.cascade-at-once', ...leftBehind(0));
  }
  for (const item of contacts) {
    const known = world.contacts.get(idOf(item));
    if (!known || written) continue;
    const moved = CONTACT_STABLE.filter(
      (field) =>
        known.stable[field] !== undefined && field in item && !sameValue(item[field], known.stable[field]),
    ).map(
      (field) => `contact ${idOf(item)}: ${field} was ${show(known.stable[field])}, now ${show(item[field])}`,
    );
    const changed = Object.values(known.changedAt);
    if (moved.length > 0)
      v.check(
        changed.length > 0
          ? 'contacts.update.keeps-the-rest'
          : viewRule('contacts.retrieve', 'contacts.list'),
        ...moved,
      );
    // A field an update changed shows its new value once the update is settled, not a former one.
    const former = CONTACT_UPDATES.filter((field) => (known.changedAt[field] ?? Infinity) <= settledBy);
    if (former.length > 0)
      v.check(
        'contacts.update.display-name',
        ...former.map(
          (field) =>
            item[field] !== known.updatable[field] &&
            (known.former[field] ?? []).includes(item[field]) &&
            `contact ${idOf(item)} shows its former ${field} ${show(item[field])}, not ${show(known.updatable[field])}`,
        ),
      );
  }
  for (const item of messages) {
    const known = world.messages.get(idOf(item));
    if (!known || written || known.learntAt > started) continue;
    messageView(v, item, known, settledBy, isList);
    // A message the session made and never updated (and it is the only writer): as it was sent.
    if (known.sent && known.updatedAt === undefined && untouched(idOf(item)))
      v.check(
        'messages.send.new-message-defaults',
        item.updated_at !== null &&
          `message ${idOf(item)}, which no update touched, shows updated_at ${show(item.updated_at)}`,
      );
  }
}

/** `started`: writes finished by then must show in this view (for a list, the settle window before it). */
function messageView(v: Verdicts, item: Json, known: MessageFacts, started: number, isList: boolean): void {
  const id = idOf(item);
  const updated = known.updatedAt !== undefined && known.updatedAt <= started;
  const moved = [
    item.conversation_id !== known.conversationId &&
      `conversation_id was ${show(known.conversationId)}, now ${show(item.conversation_id)}`,
    item.created_at !== known.createdAt &&
      `created_at was ${show(known.createdAt)}, now ${show(item.created_at)}`,
    isObject(item.contact) &&
      known.senderId !== undefined &&
      item.contact.id !== known.senderId &&
      `the sender was ${show(known.senderId)}, now ${show(item.contact.id)}`,
  ]
    .filter((p): p is string => typeof p === 'string')
    .map((p) => `message ${id}: ${p}`);
  if (moved.length > 0 && (updated || !isList))
    v.check(updated ? 'messages.update.keeps-the-rest' : 'messages.retrieve', ...moved);
  if (known.editedAt !== undefined && known.editedAt <= started)
    v.check(
      'messages.update.edit-text',
      item.message !== known.text &&
        known.formerTexts.includes(item.message) &&
        `message ${id} shows its former text ${show(item.message)}, not ${show(known.text)}`,
    );
  if (!updated) return;
  const shown = reactionsOf(item.reactions);
  if (shown) {
    const lost = [...known.reactions].flatMap(([name, usernames]) =>
      [...usernames]
        .filter((u) => !shown.get(name)?.has(u))
        .map((u) => `message ${id}: the reaction ${name} by ${u} is gone`),
    );
    v.check(
      known.lastUpdate?.reaction ? 'messages.update.add-reaction' : 'messages.update.keeps-the-rest',
      ...lost,
    );
  }
  if (Array.isArray(item.attachments))
    v.check(
      known.lastUpdate?.attachment ? 'messages.update.add-attachment' : 'messages.update.keeps-the-rest',
      item.attachments.length < known.attachments &&
        `message ${id} had ${known.attachments} attachment(s), and shows ${item.attachments.length}`,
    );
}

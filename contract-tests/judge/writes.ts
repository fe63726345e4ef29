import { reactionsOf } from '../model/model';
import { isObject, type Json, type Reading } from '../http/exchange';
import { sentAttachments, sentReactions } from './session';
import { idOf } from './pages';
import {
  CONTACT_STABLE,
  CONTACT_UPDATES,
  type ContactFacts,
  type MessageFacts,
  type SessionState,
  type World,
} from './state';
import { contactFieldRules, notNow } from './conventions';
import { kept, sameValue } from '../rules/fields';
import {
  CONTACT_FIELDS,
  createdWith,
  requiredOf,
  sentOf,
  updatedWith,
  type SentKind,
} from '../rules/resources';
import { routeId, show, type Problem, type Verdicts } from './verdicts';
import { contactRecord } from './records';

/**
 * The answers to writes: what the request sent against what the answer shows, and what the record
 * was before (a field the operation keeps).
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
  if (typeof params.username === 'string' && !('display_name' in params)) {
    // The username as the server holds it (its answer), or as it was sent: a username the create
    // lost is contacts.create's fault, and a default that follows it is still the default.
    const sent = params.username;
    const shown = body.display_name;
    const defaulted =
      (typeof body.username === 'string' && shown === body.username) ||
      (typeof shown === 'string' && kept(sent, shown, 'text') !== 'lost');
    v.check(
      'contacts.create.display-name-defaults-to-username',
      !defaulted &&
        `created without display_name, the answer has display_name ${show(shown)} (the username is ${show(sent)})`,
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
        // Applied as sent, or changed all the same (a value of its own): not ignored, either way.
        applied.push(
          !sameValue(body[field], before) &&
            (String(body[field]) === String(params[field])
              ? `sent ${field} ${show(params[field])}, and the update applied it (it was ${show(before)})`
              : `sent ${field} ${show(params[field])}, and the update changed it from ${show(before)} to ${show(body[field])}`),
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
    for (const [name, usernames] of known?.reactions ?? []) {
      // A username under the name that neither this update nor the message had: another update
      // added it (one on its way at once), and a user gone beside it is that adding's loss.
      const others = [...(shown.get(name) ?? [])].filter((u) => !usernames.has(u));
      for (const username of usernames) {
        if (shown.get(name)?.has(username)) continue;
        const gone = `the reaction ${name} by ${username} is gone after the update`;
        if (sent.has(name)) added.push(gone);
        else if (others.length > 0)
          added.push(`${gone}, and ${others.map(show).join(', ')} stand under ${name} instead`);
        else kept.push(gone);
      }
    }
  }
  // Reactions the judge cannot read (messages.reactions-shape) show no adding kept: not judged here.
  if ((sent.size > 0 && shown) || added.some(Boolean)) v.check('messages.update.add-reaction', ...added);
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
    changed &&
      body.updated_at === null &&
      `the update ${describeUpdate(params, sent, attachments)} answered updated_at null`,
    // A message is updated after it is made: its first update is never before its created_at as
    // known before any update (an answer that moves created_at breaks keeps-the-rest instead).
    known !== undefined &&
      known.updatedAt === undefined &&
      typeof body.updated_at === 'number' &&
      typeof known.createdAt === 'number' &&
      body.updated_at < known.createdAt &&
      `the first update answered updated_at ${body.updated_at}, before the message's created_at ${known.createdAt}`,
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
function describeUpdate(params: Json, reactions: ReadonlyMap<string, unknown>, attachments: number): string {
  const parts = [
    typeof params.message === 'string' ? 'a new text' : '',
    reactions.size > 0 ? 'a reaction' : '',
    attachments > 0 ? 'an attachment' : '',
  ].filter(Boolean);
  return `that sent ${parts.join(' and ') || 'nothing'}`;
}

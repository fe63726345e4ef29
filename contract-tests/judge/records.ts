import { reactionsOf } from '../model/model';
import { isObject, type Json, type Reading } from '../http/exchange';
import { itemsOf } from './session';
import { idOf } from './pages';
import {
  CONTACT_STABLE,
  CONTACT_UPDATES,
  SENDER_STABLE,
  formerKey,
  viewBit,
  wellFormed,
  type MessageFacts,
  type SessionState,
  type World,
} from './state';
import { mockMessage, badId, otherKind, notSeconds } from './conventions';
import {
  CONTACT,
  MESSAGE,
  nonIntegerTimestamps,
  problems,
  reactionsShape,
  SENDER,
  SENDER_FORBIDDEN,
  kept,
  sameValue,
} from '../rules/fields';
import { show, where, type Verdicts } from './verdicts';
import { newIds } from './identity';

/**
 * The records in one answer: their fields, and what earlier exchanges of the same token make
 * certain (a record deleted, a field no operation changes). The answers to writes against what
 * their requests sent: writes.ts.
 */

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
  // Only a reaction can break its shape: a message without any (or without an array of them,
  // messages.fields' to judge) is not counted among the answers judged against it.
  if (Array.isArray(item.reactions) && item.reactions.length > 0)
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
    // The conversation's contact, as every answer that showed it agreed it is (a contact whose
    // answers disagreed is judged there, and its messages' contact is not judged by it).
    const known = owner !== undefined ? world?.contacts.get(owner) : undefined;
    const differs = (field: string) =>
      known !== undefined &&
      !known.stableMoved &&
      field in sender &&
      wellFormed(known.stable[field]) &&
      !sameValue(sender[field], known.stable[field]);
    if (owner !== undefined)
      v.check(
        'messages.contact-is-sender',
        String(sender.id) !== owner &&
          where(
            at,
            `its contact is ${show(sender.id)}, but conversation ${item.conversation_id as string} belongs to contact ${owner}`,
          ),
        ...(String(sender.id) === owner ? SENDER_STABLE.filter(differs) : []).map((field) =>
          where(
            at,
            `its contact's ${field} is ${show(sender[field])}, but contact ${owner}, whose conversation it is in, has ${show(known!.stable[field])}`,
          ),
        ),
      );
  }
  if (!v.has('mock.ids')) return;
  mockMessage(v, item, at, state, world);
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
        wellFormed(known.stable[field]) && field in item && !sameValue(item[field], known.stable[field]),
    ).map(
      (field) => `contact ${idOf(item)}: ${field} was ${show(known.stable[field])}, now ${show(item[field])}`,
    );
    // A view that moves it first thing after an update's answer, where a view of its kind showed it
    // well before: the update moved what it kept in its answer. Else the view's fault.
    const byUpdate = movedByUpdate(known, reading.route.kind === 'contacts');
    if (moved.length > 0)
      v.check(
        byUpdate ? 'contacts.update.keeps-the-rest' : viewRule('contacts.retrieve', 'contacts.list'),
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
            known.former[field]?.has(formerKey(item[field])) &&
            !known.unsettled?.[field]?.has(formerKey(item[field])) &&
            `contact ${idOf(item)} shows its former ${field} ${show(item[field])}, not ${show(known.updatable[field])}`,
        ),
      );
    // Read after read with nothing written between, a contact shows the values an update may
    // change as the read before showed them: a value the server makes (a default, a
    // normalization) is made the same way in every view. (A former value: see above.)
    const before = known.shownBy;
    if (before !== undefined && before !== 'write' && known.learntAt <= settledBy && untouched(idOf(item)))
      v.check(
        isList || before === 'list' ? 'contacts.list' : 'contacts.retrieve',
        ...CONTACT_UPDATES.map(
          (field) =>
            field in item &&
            field in known.updatable &&
            !sameValue(item[field], known.updatable[field]) &&
            // Neither is a value the field had before an update (judged above when it was shown).
            ![item[field], known.updatable[field]].some((value) =>
              known.former[field]?.has(formerKey(value)),
            ) &&
            `contact ${idOf(item)}: the ${before} answered before showed ${field} ${show(known.updatable[field])}, and this ${isList ? 'list' : 'retrieve'} shows ${show(item[field])}, with nothing written between`,
        ),
      );
    // Likewise after a write's answer, what the server holds from then on: a read that loses some
    // of the display_name it showed (see messages below) shows the write did not keep what it took.
    const shown = known.updatable.display_name;
    if (
      before === 'write' &&
      known.learntAt <= settledBy &&
      typeof shown === 'string' &&
      'display_name' in item &&
      !known.unsettled?.display_name?.size &&
      !known.former.display_name?.has(formerKey(item.display_name)) &&
      untouched(idOf(item))
    )
      v.check(
        known.changedAt.display_name !== undefined
          ? 'contacts.update.display-name'
          : shown === known.stable.username
            ? 'contacts.create.display-name-defaults-to-username'
            : 'contacts.create',
        kept(shown, item.display_name, 'text') === 'lost' &&
          `contact ${idOf(item)}: the answer to its last write showed display_name ${show(shown)}, and this ${isList ? 'list' : 'retrieve'} shows ${show(item.display_name)}, with nothing written between`,
      );
    // A time the contact was active has happened: a read after another that showed one shows it
    // or a later one, never null or an earlier time (a list shows the contact as retrieve does).
    const active = known.active;
    if (active && active.at <= settledBy && 'last_active_at' in item) {
      const now = item.last_active_at;
      v.check(
        active.listed || isList ? 'contacts.list' : 'contacts.retrieve',
        (now === null ||
          (typeof now === 'number' && typeof active.value === 'number' && now < active.value)) &&
          `contact ${idOf(item)}: the ${active.listed ? 'list' : 'retrieve'} answered before showed last_active_at ${show(active.value)}, and this ${isList ? 'list' : 'retrieve'} shows ${show(now)}`,
      );
    }
  }
  for (const item of messages) {
    const known = world.messages.get(idOf(item));
    if (!known || written || known.learntAt > started) continue;
    messageView(v, item, known, settledBy, isList ? listOfMessages(reading) : undefined);
    // The text a write's answer showed last, as the server holds it from then on: a read that
    // loses some of it (a character dropped or replaced, a cut) shows the write did not keep what
    // it took, though its answer echoed it (rules/fields.ts kept(): NFC and trimmed ends lose nothing).
    if (
      known.heldSince === known.learntAt &&
      known.learntAt <= settledBy &&
      !known.unsettledTexts?.length &&
      typeof known.text === 'string' &&
      'message' in item &&
      untouched(idOf(item))
    )
      v.check(
        known.editedAt === undefined ? 'messages.send' : 'messages.update.edit-text',
        kept(known.text, item.message, 'text') === 'lost' &&
          `message ${idOf(item)}: the answer to its ${known.editedAt === undefined ? 'send' : 'edit'} showed the text ${show(known.text)}, and this ${isList ? 'list' : 'retrieve'} shows ${show(item.message)}, with nothing written between`,
      );
    // Only an update moves updated_at: after one, every read shows what that update's answer (or a
    // retrieve after it) showed, until the next (not null again, nor moved by a read or a refusal).
    const stamp = known.stamp;
    if (
      stamp &&
      known.updatedAt !== undefined &&
      known.updatedAt <= stamp.from &&
      stamp.at <= settledBy &&
      'updated_at' in item &&
      untouched(idOf(item))
    )
      v.check(
        'messages.update.updated-at',
        !sameValue(item.updated_at, stamp.value) &&
          `message ${idOf(item)}: after its last update it showed updated_at ${show(stamp.value)}, and this ${isList ? 'list' : 'retrieve'} shows ${show(item.updated_at)}, with no update taken between`,
      );
    // A message the session made and never updated (and it is the only writer): as it was sent. A
    // view that leaves updated_at out breaks the fields rule, not this one.
    if (known.sent && known.updatedAt === undefined && 'updated_at' in item && untouched(idOf(item)))
      v.check(
        'messages.send.new-message-defaults',
        item.updated_at !== null &&
          `message ${idOf(item)}, which no update touched, shows updated_at ${show(item.updated_at)}`,
      );
  }
}

/**
 * Whether a view (`listed`: a list) that moves a field that never changes shows an update's fault:
 * the session learnt the record last from an update's answer (which showed it kept), and a view
 * of this kind showed it as known before. Else it is the view's own fault.
 */
const movedByUpdate = (
  known: { learntAt: number; heldSince?: number; updatedAt?: number; viewedWell?: number },
  listed: boolean,
) =>
  known.updatedAt === known.learntAt &&
  known.heldSince === known.learntAt &&
  ((known.viewedWell ?? 0) & viewBit(listed)) !== 0;

/** The rule of the list of messages a reading asked for: one conversation's, or all of them. */
const listOfMessages = (reading: Reading) =>
  reading.query.has('conversation_id')
    ? 'messages.list.conversation-filter'
    : 'messages.list.all-conversations';

/**
 * `started`: writes finished by then must show in this view (for a list, the settle window before
 * it). `list`: the rule of the list that shows the message; undefined for retrieve.
 */
function messageView(
  v: Verdicts,
  item: Json,
  known: MessageFacts,
  started: number,
  list: string | undefined,
): void {
  const id = idOf(item);
  const updated = known.updatedAt !== undefined && known.updatedAt <= started;
  const moved = [
    wellFormed(known.conversationId) &&
      item.conversation_id !== known.conversationId &&
      `conversation_id was ${show(known.conversationId)}, now ${show(item.conversation_id)}`,
    wellFormed(known.createdAt) &&
      item.created_at !== known.createdAt &&
      `created_at was ${show(known.createdAt)}, now ${show(item.created_at)}`,
    // A list that shows another sender is judged by whom it shows (messages.contact-is-sender).
    list === undefined &&
      isObject(item.contact) &&
      wellFormed(known.senderId) &&
      item.contact.id !== known.senderId &&
      `the sender was ${show(known.senderId)}, now ${show(item.contact.id)}`,
  ]
    .filter((p): p is string => typeof p === 'string')
    .map((p) => `message ${id}: ${p}`);
  // As for contacts: the update's fault, or the view's (the list's, or retrieve's).
  const byUpdate = updated && movedByUpdate(known, list !== undefined);
  if (moved.length > 0)
    v.check(byUpdate ? 'messages.update.keeps-the-rest' : (list ?? 'messages.retrieve'), ...moved);
  if (known.editedAt !== undefined && known.editedAt <= started)
    v.check(
      'messages.update.edit-text',
      item.message !== known.text &&
        known.formerTexts.includes(item.message) &&
        !known.unsettledTexts?.includes(item.message) &&
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

import { reactionsOf } from '../model/model';
import { isObject, type Json, type PendingWrite, type Reading } from '../http/exchange';
import { learnWalk } from './walks';
import { listRefusedAlone, namesMadeUpId, refusedCreate, refusedForm, sentKey } from './refusals';
import { idOf, listKey, pageOf } from './pages';
import { PAGE, problems, sameValue } from '../rules/fields';
import {
  copy,
  DEFAULT_LIMITS,
  dropRecord,
  dropWorld,
  enforce,
  keepRecord,
  kept,
  newLedger,
  newMemory,
  noteCreated,
  noteGone,
  noteKind,
  notePage,
  noteRefused,
  noteReused,
  noteRefusedRequest,
  noteDelete,
  dropRefused,
  teaches,
} from './memory';
import {
  CONTACT_STABLE,
  CONTACT_UPDATES,
  formerKey,
  viewBit,
  wellFormed,
  type Limits,
  type SessionState,
  type World,
} from './state';

export type { SessionState, World } from './state';

/**
 * What the proxy has learnt of each token's world from the exchanges it saw, and nothing else:
 * the judge reads it, `learn` adds each exchange to it once the exchange is judged. A world is
 * known by its whole Authorization header, in memory only, and within the bounds of memory.ts:
 * what is forgotten is learnt again from later traffic.
 *
 * Times are those of the exchanges (ms): a record deleted by an answer finished at T counts as
 * gone for a request that arrived at T or later, never for one that was already on its way.
 */

export function newSession(
  limits: Limits = DEFAULT_LIMITS,
  soleWriter = false,
  sawEveryCreate = false,
): SessionState {
  return {
    worlds: new Map(),
    creators: new Map(),
    kinds: new Map(),
    memory: newMemory(limits),
    soleWriter,
    sawEveryCreate,
    refusedDeletes: new Map(),
  };
}

export function worldOf(state: SessionState, authorization: string | undefined): World | undefined {
  return authorization === undefined ? undefined : state.worlds.get(authorization);
}

/** The token's world, made if need be, and now the most recently used. */
function ensureWorld(state: SessionState, authorization: string): World {
  let world = state.worlds.get(authorization);
  if (world) state.worlds.delete(authorization);
  else
    world = {
      contacts: new Map(),
      messages: new Map(),
      goneContacts: new Map(),
      goneMessages: new Map(),
      goneConversations: new Map(),
      owners: new Map(),
      openPages: new Map(),
      walks: [],
      wholeLists: new Map(),
      pageSizes: new Map(),
      writes: 0,
      lastWriteAt: 0,
      refused: new Map(),
      formsRefused: new Map(),
      listsRefused: new Map(),
      deletes: [],
      held: [],
      mostOnAPage: new Map(),
      ledger: newLedger(state, authorization),
    };
  state.worlds.set(authorization, world);
  return world;
}

/** The contacts and messages an answer shows, whichever kind of answer it is. */
export function itemsOf(reading: Reading): { contacts: Json[]; messages: Json[] } {
  const { route, body } = reading;
  const method = reading.exchange.method;
  if (method === 'GET' && (route.kind === 'contacts' || route.kind === 'messages')) {
    const data = pageOf(reading)?.data ?? [];
    return route.kind === 'contacts' ? { contacts: data, messages: [] } : { contacts: [], messages: data };
  }
  // A create (POST to a list's path), a retrieve or an update answers one record.
  if (!isObject(body) || method === 'DELETE' || method === 'HEAD') return { contacts: [], messages: [] };
  if (route.kind === 'contact' || route.kind === 'contacts') return { contacts: [body], messages: [] };
  if (route.kind === 'message' || route.kind === 'messages') return { contacts: [], messages: [body] };
  return { contacts: [], messages: [] };
}

/** The sent reactions as name → usernames, from `reactions[name][]=u` or JSON (a list or one object). */
export function sentReactions(params: Json | undefined): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const value = params?.reactions;
  const add = (name: string, usernames: unknown) => {
    const list = Array.isArray(usernames)
      ? usernames
      : isObject(usernames)
        ? Object.values(usernames)
        : [usernames];
    found.set(name, [...(found.get(name) ?? []), ...list.filter((u): u is string => typeof u === 'string')]);
  };
  for (const element of Array.isArray(value) ? value : [value]) {
    if (!isObject(element)) continue;
    for (const [name, usernames] of Object.entries(element)) add(name, usernames);
  }
  return found;
}

/** How many attachments a request sends (a list, or bracket keys `attachments[0][…]`). */
export function sentAttachments(params: Json | undefined): number {
  const value = params?.attachments;
  if (Array.isArray(value)) return value.length;
  if (isObject(value)) return Object.keys(value).length;
  return 0;
}

const sent = (params: Json | undefined, key: string): boolean => params !== undefined && key in params;

/**
 * The views that showed a record's fields that never change as known (ContactFacts `viewedWell`),
 * after a read (`read`, and whether a list) that moved them (`moved`) or not.
 */
function viewedWellAfter(before: number | undefined, read: { listed: boolean } | undefined, moved: boolean) {
  return read && !moved ? (before ?? 0) | viewBit(read.listed) : before;
}

/** `read`: the answer was a read (not a write's), and whether a list. */
function learnContact(
  state: SessionState,
  world: World,
  item: Json,
  at: number,
  read?: { listed: boolean },
): void {
  const id = idOf(item);
  if (world.goneContacts.has(id)) return;
  const known = world.contacts.get(id);
  const conversationId =
    typeof item.conversation_id === 'string' ? item.conversation_id : known?.conversationId;
  const stable = { ...known?.stable };
  const movedNow = CONTACT_STABLE.some(
    (field) => field in item && wellFormed(stable[field]) && !sameValue(item[field], stable[field]),
  );
  const stableMoved = known?.stableMoved ?? movedNow;
  // A first view has nothing to be compared with: it shows nothing well.
  const viewedWell = known && viewedWellAfter(known.viewedWell, read, movedNow);
  // What never changes is held as first shown well formed by reads; a write's answer shows what
  // the server now holds (a change there is keeps-the-rest's, judged at that answer).
  for (const field of CONTACT_STABLE)
    if (field in item && (!read || !wellFormed(stable[field]))) stable[field] = kept(item[field]);
  const updatable = { ...known?.updatable };
  for (const field of CONTACT_UPDATES) if (field in item) updatable[field] = kept(item[field]);
  if (known?.conversationId !== undefined && world.owners.get(known.conversationId) === id)
    world.owners.delete(known.conversationId);
  const activeAt = item.last_active_at;
  const active =
    read && activeAt !== null && activeAt !== undefined
      ? { value: kept(activeAt), at, listed: read.listed }
      : known?.active;
  world.contacts.set(id, {
    seenAt: known?.seenAt ?? at,
    learntAt: at,
    shownBy: read ? (read.listed ? 'list' : 'retrieve') : 'write',
    ...(conversationId !== undefined ? { conversationId } : {}),
    stable,
    ...(stableMoved ? { stableMoved: true as const } : {}),
    ...(viewedWell ? { viewedWell } : {}),
    updatable,
    former: known?.former ?? {},
    changedAt: known?.changedAt ?? {},
    ...(known?.updatedAt !== undefined ? { updatedAt: known.updatedAt } : {}),
    ...(!read ? { heldSince: at } : known?.heldSince !== undefined ? { heldSince: known.heldSince } : {}),
    ...(known?.unsettled ? { unsettled: known.unsettled } : {}),
    ...(active ? { active } : {}),
  });
  if (conversationId !== undefined) world.owners.set(conversationId, id);
  keepRecord(state, world, 'c', id);
}

/** No reactions: one map for every message that has none (a Map of its own holds ~200 bytes). */
const NO_REACTIONS: Map<string, Set<string>> = new Map();

/**
 * The reactions a message showed before, with those an answer shows now. The document has no way to
 * take a reaction away, so those that updates on their way at once acknowledged, each in its own
 * answer, are all in every later view (the answer judged last may not show the others').
 */
function allShown(
  known: Map<string, Set<string>>,
  shown: Map<string, Set<string>>,
): Map<string, Set<string>> {
  const missing = [...known].some(([name, users]) => [...users].some((u) => !shown.get(name)?.has(u)));
  if (!missing) return shown;
  const all = new Map([...shown].map(([name, users]) => [name, new Set(users)]));
  for (const [name, users] of known) {
    const into = all.get(name) ?? new Set<string>();
    for (const user of users) into.add(user);
    all.set(name, into);
  }
  return all;
}

/**
 * `sent`: the answer to its send. `stampFrom`: the answer shows the message as it stays from then
 * until the next update (a retrieve: when it was sent; an update no other overlapped: when it was
 * answered). `overlapped`: the answer to an update that another, judged before it, overlapped: it
 * adds to the reactions and attachments known instead of replacing them.
 */
function learnMessage(
  state: SessionState,
  world: World,
  item: Json,
  at: number,
  how: { sent?: boolean; stampFrom?: number; overlapped?: boolean; read?: boolean; listed?: boolean } = {},
): void {
  const { sent = false, stampFrom, overlapped = false, read = false, listed = false } = how;
  const id = idOf(item);
  if (world.goneMessages.has(id)) return;
  if (typeof item.conversation_id === 'string' && world.goneConversations.has(item.conversation_id)) return;
  const shown = {
    learntAt: at,
    conversationId: kept(item.conversation_id),
    createdAt: kept(item.created_at),
    senderId: isObject(item.contact) ? kept(item.contact.id) : undefined,
    text: kept(item.message),
  };
  const found = reactionsOf(item.reactions);
  const reactions = found && (found.size > 0 ? found : NO_REACTIONS);
  const attachments = Array.isArray(item.attachments) ? item.attachments.length : undefined;
  const known = world.messages.get(id);
  // Shown as it stays, after the last update the session saw: updated_at as that update left it.
  const stamp =
    stampFrom !== undefined && 'updated_at' in item && (known?.updatedAt ?? -Infinity) <= stampFrom
      ? { value: kept(item.updated_at), from: stampFrom, at }
      : undefined;
  if (known) {
    // Updated in place: a page of messages is learnt after every list. What never changes stays as
    // reads first showed it well formed, as for contacts (`learnContact`).
    const held = (value: unknown, now: unknown) => (read && wellFormed(value) ? value : now);
    const moved = (value: unknown, now: unknown) => wellFormed(value) && now !== value;
    const viewedWell = viewedWellAfter(
      known.viewedWell,
      read ? { listed } : undefined,
      moved(known.conversationId, shown.conversationId) ||
        moved(known.createdAt, shown.createdAt) ||
        moved(known.senderId, shown.senderId),
    );
    if (viewedWell) known.viewedWell = viewedWell;
    Object.assign(known, {
      learntAt: shown.learntAt,
      text: shown.text,
      conversationId: held(known.conversationId, shown.conversationId),
      createdAt: held(known.createdAt, shown.createdAt),
      senderId: held(known.senderId, shown.senderId),
    });
    if (reactions) known.reactions = overlapped ? allShown(known.reactions, reactions) : reactions;
    // Attachments likewise: the most that updates at once showed is in every later view.
    if (attachments !== undefined)
      known.attachments = overlapped ? Math.max(known.attachments, attachments) : attachments;
    if (stamp) known.stamp = stamp;
    if (!read) known.heldSince = at;
  } else
    world.messages.set(id, {
      ...shown,
      seenAt: at,
      ...(sent ? { sent } : {}),
      formerTexts: [],
      reactions: reactions ?? NO_REACTIONS,
      attachments: attachments ?? 0,
      ...(stamp ? { stamp } : {}),
      ...(!read ? { heldSince: at } : {}),
    });
  keepRecord(state, world, 'm', id);
}

function noteKinds(state: SessionState, world: World, contacts: Json[], messages: Json[]): void {
  for (const [items, kind] of [
    [contacts, 'contact'],
    [messages, 'message'],
  ] as const)
    for (const item of items) {
      noteKind(state, world, idOf(item), kind);
      if (typeof item.conversation_id === 'string')
        noteKind(state, world, item.conversation_id, 'conversation');
    }
}

/** Adds what one exchange shows to the session. Call it after the exchange was judged. */
export function learn(state: SessionState, reading: Reading, pending: readonly PendingWrite[] = []): void {
  const { exchange, route, authorization } = reading;
  // A forced answer, or one to an id made up to name no record (refusals.ts), teaches nothing.
  if (reading.forced || namesMadeUpId(reading)) return;
  if (
    exchange.method === 'DELETE' &&
    (exchange.status === 401 || exchange.status === 403) &&
    (route.kind === 'contact' || route.kind === 'message')
  )
    noteRefusedDelete(state, copy(route.id), { at: exchange.finishedAt, status: exchange.status });
  const at = exchange.finishedAt;
  const method = exchange.method;
  // Refused or not, a write may have moved the token's lists (judge/walks.ts).
  const writing = !['GET', 'HEAD', 'OPTIONS'].includes(method);
  if (authorization === undefined) {
    if (writing && reading.ok) takenWithoutToken(state, reading);
    return;
  }
  // The token's world, when it has one before this exchange.
  const before = state.worlds.get(authorization);
  if (writing && before) {
    before.writes += 1;
    before.lastWriteAt = Math.max(before.lastWriteAt, at);
  }
  if (refusedForm(reading))
    noteRefusedRequest(
      state,
      ensureWorld(state, authorization),
      'formsRefused',
      copy(sentKey(reading)),
      exchange.status,
    );
  const alone = listRefusedAlone(reading);
  if (alone)
    noteRefusedRequest(
      state,
      ensureWorld(state, authorization),
      'listsRefused',
      copy(alone),
      exchange.status,
    );
  const refusal = refusedCreate(reading);
  if (refusal)
    noteRefused(state, ensureWorld(state, authorization), refusal.key, {
      at,
      lacking: refusal.lacking,
    });
  // A record a retrieve answers 404 or 410 for is gone, whatever took it (judge/traces.ts judged
  // that): the views after it are not held to it.
  if (before && method === 'GET' && [404, 410].includes(exchange.status))
    if (route.kind === 'contact' || route.kind === 'message')
      dropRecord(state, before, route.kind === 'contact' ? 'c' : 'm', route.id);
  if (!reading.ok) return;
  if (route.kind === 'outside' || route.kind === 'unknown-api') {
    // A write the proxy cannot read (the mock's reset, a fixture loaded): the world may be
    // anything now, so what was learnt of it no longer holds.
    if (writing) dropWorld(state, authorization, at);
    return;
  }
  const world = ensureWorld(state, authorization);
  if (route.kind === 'contacts' && method === 'GET' && reading.query.size === 0)
    if (problems(reading.body, PAGE).length === 0) world.contactPages = true;
  if (method === 'DELETE') forget(state, world, reading);
  else learnAnswer(state, world, reading, pending);
  enforce(state, authorization);
}

/**
 * A write taken without a token (api.auth-required was judged against it) may have acted on any
 * token's world: each world counts it among its writes, a record it named is deleted or no longer
 * known as it was, and a record it created may be anywhere (no world knows every create now).
 */
function takenWithoutToken(state: SessionState, reading: Reading): void {
  const { route, exchange } = reading;
  if (exchange.method === 'POST') state.sawEveryCreate = false;
  for (const world of state.worlds.values()) {
    world.writes += 1;
    world.lastWriteAt = Math.max(world.lastWriteAt, exchange.finishedAt);
    if (route.kind !== 'contact' && route.kind !== 'message') continue;
    const known = route.kind === 'contact' ? world.contacts.has(route.id) : world.messages.has(route.id);
    // A delete it does not know the record of may still have taken one of its records by another
    // way (a contact's messages): noted, for what goes missing after it (judge/traces.ts `takerOf`).
    if (exchange.method === 'DELETE' && !known) noteDeleteOf(state, world, reading, true);
    else if (exchange.method === 'DELETE') forget(state, world, reading, true);
    else if (known) dropRecord(state, world, route.kind === 'contact' ? 'c' : 'm', route.id);
  }
}

/** The latest deletes refused for their token, a few (each a few dozen bytes, not counted). */
const REFUSED_DELETES = 64;

function noteRefusedDelete(state: SessionState, id: string, refusal: { at: number; status: number }): void {
  state.refusedDeletes.delete(id);
  state.refusedDeletes.set(id, refusal);
  if (state.refusedDeletes.size > REFUSED_DELETES)
    state.refusedDeletes.delete(state.refusedDeletes.keys().next().value!);
}

/** What a delete named, among the token's deletes (`World.deletes`). */
function noteDeleteOf(state: SessionState, world: World, reading: Reading, withoutToken: boolean): void {
  const { route } = reading;
  if (route.kind !== 'contact' && route.kind !== 'message') return;
  const conversation = route.kind === 'message' ? world.messages.get(route.id)?.conversationId : undefined;
  noteDelete(state, world, {
    kind: route.kind,
    id: copy(route.id),
    at: reading.exchange.finishedAt,
    ...(typeof conversation === 'string' ? { conversation } : {}),
    ...(withoutToken ? { withoutToken: true as const } : {}),
  });
}

/** A delete: the record is gone, and a contact's conversation with its messages. */
function forget(state: SessionState, world: World, reading: Reading, withoutToken = false): void {
  const { route } = reading;
  const at = reading.exchange.finishedAt;
  noteDeleteOf(state, world, reading, withoutToken);
  if (route.kind === 'contact') {
    const id = copy(route.id);
    const conversationId = world.contacts.get(id)?.conversationId;
    dropRecord(state, world, 'c', id);
    noteGone(state, world, world.goneContacts, id, at);
    if (conversationId !== undefined) {
      noteGone(state, world, world.goneConversations, conversationId, at);
      for (const [messageId, message] of world.messages)
        if (message.conversationId === conversationId) dropRecord(state, world, 'm', messageId);
    } else {
      // Its conversation is not known (never seen, or forgotten): any message whose conversation
      // has no known contact may have been in it, and a late answer may still show them.
      for (const [messageId, message] of world.messages)
        if (!world.owners.has(String(message.conversationId))) dropRecord(state, world, 'm', messageId);
      world.ledger.forgotAt = Math.max(world.ledger.forgotAt, at);
    }
  } else if (route.kind === 'message') {
    const id = copy(route.id);
    dropRecord(state, world, 'm', id);
    noteGone(state, world, world.goneMessages, id, at);
  }
}

/** No update of the record that the session saw was answered after `startedAt` (an update sent then). */
const updatedAloneSince = (known: { updatedAt?: number } | undefined, startedAt: number): boolean =>
  (known?.updatedAt ?? -Infinity) <= startedAt;

/** What an answer (a page, a record) shows, and what a write did. */
function learnAnswer(
  state: SessionState,
  world: World,
  reading: Reading,
  pending: readonly PendingWrite[],
): void {
  const { exchange, route, authorization } = reading;
  const at = exchange.finishedAt;
  const method = exchange.method;
  const { contacts, messages } = itemsOf(reading);
  noteKinds(state, world, contacts, messages);
  if (method === 'POST' && contacts.length + messages.length === 1) {
    noteCreated(state, world, idOf([...contacts, ...messages][0]!), authorization!);
    for (const c of contacts) noteReused(state, world, world.goneContacts, idOf(c), exchange.startedAt);
    for (const m of messages) noteReused(state, world, world.goneMessages, idOf(m), exchange.startedAt);
  }
  const username = method === 'POST' && route.kind === 'contacts' ? reading.params?.username : undefined;
  if (typeof username === 'string') dropRefused(state, world, username);
  // An update taken whose answer shows no record changed it in ways no answer showed: what was known
  // of it no longer holds, until a view shows it again.
  if (
    (method === 'PUT' || method === 'PATCH') &&
    (route.kind === 'contact' || route.kind === 'message') &&
    !isObject(reading.body)
  ) {
    dropRecord(state, world, route.kind === 'contact' ? 'c' : 'm', route.id);
    return;
  }
  // A late answer, sent before a deletion this world forgot, could show a deleted record alive.
  if (!teaches(world, exchange.startedAt)) return;
  // Updates of one record on their way at once may be applied in any order, whichever was answered
  // first: the values they answered are all unsettled, and a former value only after one on its own.
  if (method === 'PUT' && route.kind === 'contact') {
    const known = world.contacts.get(route.id);
    const shown = contacts[0];
    if (known && shown) {
      const alone = updatedAloneSince(known, exchange.startedAt);
      for (const field of CONTACT_UPDATES) {
        if (!sent(reading.params, field)) continue;
        if (alone) delete known.unsettled?.[field];
        else
          ((known.unsettled ??= {})[field] ??= new Set())
            .add(formerKey(known.updatable[field]))
            .add(formerKey(shown[field]));
        if (known.updatable[field] === shown[field]) continue;
        (known.former[field] ??= new Set()).add(formerKey(known.updatable[field]));
        known.changedAt[field] = at;
      }
      known.updatedAt = Math.max(known.updatedAt ?? -Infinity, at);
    }
  }
  // An update's answer shows updated_at as that update left it, unless another update of the
  // message was on its way at once (and may have been applied after it), whichever was answered first.
  let updatedAlone = false;
  if (method === 'PUT' && route.kind === 'message') {
    const known = world.messages.get(route.id);
    updatedAlone = updatedAloneSince(known, exchange.startedAt);
    if (known && messages[0]) {
      if (sent(reading.params, 'message')) {
        const shown = messages[0].message;
        if (updatedAlone) delete known.unsettledTexts;
        else
          known.unsettledTexts = [
            ...new Set([...(known.unsettledTexts ?? []), known.text, kept(shown)]),
          ].slice(-20);
        if (known.text !== shown) {
          known.formerTexts = [...known.formerTexts, known.text].slice(-20);
          known.editedAt = at;
        }
      }
      known.updatedAt = Math.max(known.updatedAt ?? -Infinity, at);
      // Overlapping one judged before it: the answer that set the stamp may not show the last.
      if (!updatedAlone) delete known.stamp;
      known.lastUpdate = {
        reaction: sentReactions(reading.params).size > 0,
        attachment: sentAttachments(reading.params) > 0,
      };
    }
  }
  const read = method === 'GET' ? { listed: route.kind === 'contacts' } : undefined;
  for (const contact of contacts) learnContact(state, world, contact, at, read);
  const sending = method === 'POST' && route.kind === 'messages';
  const stampFrom =
    method === 'GET' && route.kind === 'message' ? exchange.startedAt : updatedAlone ? at : undefined;
  const overlapped = method === 'PUT' && route.kind === 'message' && !updatedAlone;
  for (const message of messages)
    learnMessage(state, world, message, at, {
      sent: sending,
      stampFrom,
      overlapped,
      read: method === 'GET',
      listed: route.kind === 'messages',
    });
  const page = pageOf(reading);
  const last = page?.data.at(-1);
  if (page?.has_more && last)
    notePage(
      state,
      world,
      copy(`${listKey(reading)}|${idOf(last)}`),
      exchange.startedAt,
      page.data.map(idOf),
    );
  if (method === 'GET') learnWalk(state, world, reading, pending);
}

import { deleting, isObject, type Json, type PendingWrite, type Reading } from '../http/exchange';
import { itemsOf, type SessionState, type World } from './session';
import { DEFAULT_PAGE, idOf, isBackParam, listKey, pageOf, recordsAsked, samePageAgain } from './pages';
import { mockPage } from './conventions';
import { PAGE, problems } from '../rules/fields';
import { contactRecord, messageRecord } from './records';
import { show, type Verdicts } from './verdicts';
import { deleteRule, deleteShown, takerOf } from './traces';
import {
  charge,
  FIRST_PAGE_PARAMS,
  isFirstPage,
  judgeBackPage,
  judgeNextPage,
  judgeWalk,
  lagging,
  pageSize,
  type Lacks,
} from './walks';
import { copy, dropHeld, noteHeld } from './memory';

/** A page of a list: its fields and records, its size, its filter, and has_more against the list. */

export function list(
  v: Verdicts,
  reading: Reading,
  state: SessionState,
  world: World | undefined,
  settleMs = 0,
  pending: readonly PendingWrite[] = [],
): void {
  const { query } = reading;
  const kind = reading.route.kind === 'contacts' ? 'contacts' : 'messages';
  // A page of contacts asked for with `active` alone that lacks a page's fields, where the list
  // asked for with nothing answers pages that have them, is the parameter's fault
  // (contacts.list.active-parameter: the list answers active with a page), not the page's.
  const wrong = problems(reading.body, PAGE);
  if (kind === 'contacts' && query.size === 1 && query.has('active') && world?.contactPages)
    v.check(
      'contacts.list.active-parameter',
      ...wrong.map(
        (problem) =>
          `with active=${query.get('active')}, ${problem}, though the list without it answers pages`,
      ),
    );
  else v.check('lists.page-fields', ...wrong);
  const page = pageOf(reading);
  if (!page) return;
  const body = reading.body as Json;
  (body.data as unknown[]).forEach((item, i) => {
    const at = `data[${i}]`;
    if (!isObject(item))
      v.check(
        kind === 'contacts' ? 'contacts.fields' : 'messages.fields',
        `${at} is ${show(item)}, not an object`,
      );
    else if (kind === 'contacts') contactRecord(v, state, item, at);
    else messageRecord(v, item, at, state, world);
  });
  const limit = query.get('limit');
  const asked = recordsAsked(limit);
  if (limit === null)
    v.check(
      'lists.default-page-size',
      page.data.length > DEFAULT_PAGE &&
        `without limit, the page holds ${page.data.length} items, more than ${DEFAULT_PAGE}`,
    );
  else if (asked !== undefined)
    v.check(
      'lists.limit',
      page.data.length > asked && `limit=${limit}, and the page holds ${page.data.length} items`,
    );
  if (kind === 'contacts' && world) sameChoice(v, reading, page, state, world, settleMs, pending);
  const conversation = query.get('conversation_id');
  if (kind === 'messages' && conversation !== null) {
    const stray = page.data.filter((m) => m.conversation_id !== conversation);
    v.check(
      'messages.list.conversation-filter',
      stray.length > 0 &&
        `listed by conversation_id=${conversation}, the page holds ${stray.length} message(s) of other conversations (e.g. ${show(stray[0]!.conversation_id)})`,
    );
  }
  if (world) {
    const unsure = doubtful(pending, reading, world);
    hasMore(v, reading, page, state, world, settleMs, unsure);
    judgeBackPage(v, reading, world, pending, settleMs);
    judgeNextPage(v, reading, world, pending, settleMs);
    judgeWalk(
      v,
      reading,
      world,
      settleMs,
      pending,
      (by) => aliveIn(reading, world, by, unsure),
      // A walk that leaves records out may have lost them between its pages: its list's rule.
      (missing) => lackingInWalk(reading, state, world, missing, reading.exchange.startedAt),
    );
  }
  if (v.has('mock.newest-first')) mockPage(v, reading, page);
}

/** How long a choice of `active` is taken to hold with no write: a server may let activity expire. */
const ACTIVE_HOLDS_MS = 10_000;

/**
 * A page of contacts chosen by `active`, asked with more (a limit, a page further): it holds only
 * contacts the same choice shown whole held, with no write between. What `active` selects is the
 * server's to say; that a parameter beside it leaves that choice alone is not (lists.limit: "limit
 * lowers how many, never which"; the paging parameter pages the same list). Only contacts the token
 * made, with no other writer, and only shortly after the whole list: a server may count activity
 * that the kit does not see, or that expires. A choice whose last page was as full as a page gets
 * may have said has_more=false too early (lists.has-more's to judge): a page with more beside it
 * may show contacts beyond it.
 */
function sameChoice(
  v: Verdicts,
  reading: Reading,
  page: { has_more: boolean; data: Json[] },
  state: SessionState,
  world: World,
  settleMs: number,
  pending: readonly PendingWrite[],
): void {
  const { query } = reading;
  const active = query.get('active');
  const beside = [...query.keys()].filter((name) => name !== 'active');
  if (active === null || beside.length === 0 || !state.soleWriter) return;
  if (pending.some((write) => write.authorization === reading.authorization)) return;
  const whole = world.wholeLists.get(listKey(reading));
  if (!whole || whole.writes !== world.writes || lagging(whole, settleMs)) return;
  if (reading.exchange.startedAt - whole.at > ACTIVE_HOLDS_MS) return;
  const shown = new Set(page.data.map(idOf));
  const other = whole.full
    ? []
    : [...shown].filter((id) => world.ledger.created.has(id) && !whole.ids.has(id));
  const by = query.get('limit') !== null ? 'lists.limit' : 'lists.pages';
  v.check(
    by,
    other.length > 0 &&
      `with ${beside.join(' and ')}, active=${active} lists ${other.length} contact(s) that active=${active} shown whole just before, with no write between, did not hold (e.g. ${other[0]})`,
  );
  // A first page that says it is the last: it holds every contact of the token's that the choice
  // shown whole held.
  if (!isFirstPage(reading) || page.has_more) return;
  const left = [...whole.ids].filter((id) => world.ledger.created.has(id) && !shown.has(id));
  const limit = query.get('limit');
  // A full page is wrong to say so; a shorter one leaves them out (as hasMore below).
  const full = limit !== null && /^[0-9]+$/.test(limit) && page.data.length >= Number(limit);
  v.check(
    full ? 'lists.has-more' : 'contacts.list',
    left.length > 0 &&
      `with ${beside.join(' and ')}, active=${active} says has_more=false, but ${left.length} contact(s) that active=${active} shown whole just before held, with no write between, are not on it (e.g. ${left[0]})`,
  );
}

/**
 * What deletes of this token, on their way as the page was answered, may have taken before it:
 * the records they name, and the conversation of a contact among them.
 */
function doubtful(pending: readonly PendingWrite[], reading: Reading, world: World): Set<string> {
  const ids = new Set<string>();
  for (const write of pending) {
    const target = write.authorization === reading.authorization ? deleting(write) : undefined;
    if (!target) continue;
    ids.add(target.id);
    const conversation =
      target.kind === 'contact' ? world.contacts.get(target.id)?.conversationId : undefined;
    if (conversation !== undefined) ids.add(conversation);
  }
  return ids;
}

function hasMore(
  v: Verdicts,
  reading: Reading,
  page: { has_more: boolean; data: Json[] },
  state: SessionState,
  world: World,
  settleMs: number,
  doubtful: Set<string>,
): void {
  const started = reading.exchange.startedAt;
  // A first page that says it holds the whole list must show every record seen alive before it:
  // a full page that leaves some out has has_more wrong; a shorter one leaves them out of the list.
  if (!page.has_more && isFirstPage(reading) && !reading.query.has('active')) {
    const listed = new Set(page.data.map(idOf));
    // With --settle-ms, a record learnt less than that before the list was asked for may not show yet.
    const missing = aliveIn(reading, world, started - settleMs, doubtful).filter((id) => !listed.has(id));
    // As many as the page holds: the limit, the default page size, or the most the server gives.
    const full = page.data.length >= (pageSize(world, reading).size ?? DEFAULT_PAGE);
    const lacks: Lacks = full
      ? { rule: 'lists.has-more', after: '' }
      : lackingOnPage(reading, state, world, missing, started);
    charge(
      v,
      lacks.rule,
      missing.length > 0 &&
        `has_more is false on the first page${full ? '' : ` of ${page.data.length} items`}, but ${missing.length} ${reading.route.kind} seen earlier in this session are not on it (e.g. ${missing[0]})${lacks.after}`,
      lacks,
    );
  }
  // The page after a page that said has_more=true (asked for with its last id): not empty, and
  // none of the items of the page before (unless it is that same page: the parameter was ignored).
  const lastDelete = Math.max(0, ...world.goneContacts.values(), ...world.goneMessages.values());
  for (const [name, value] of reading.query) {
    if (FIRST_PAGE_PARAMS.has(name) || isBackParam(name)) continue;
    const open = world.openPages.get(`${listKey(reading)}|${value}`);
    if (open === undefined || open.at > started) continue;
    const ids = page.data.map(idOf);
    // A write that ended less than --settle-ms before the page before may land in between, and
    // push its last items onto this page.
    const again = lagging({ quiet: open.at - world.lastWriteAt }, settleMs)
      ? []
      : ids.filter((id) => open.ids.includes(id));
    if (!samePageAgain(open.ids, ids))
      v.check(
        'lists.pages',
        again.length > 0 &&
          `the page after the one ending with ${value} (${name}=${value}) shows ${again.length} of its items again (e.g. ${again[0]})`,
      );
    if (lastDelete > open.at || doubtful.size > 0) continue;
    v.check(
      'lists.has-more',
      page.data.length === 0 &&
        `the page ending with ${value} said has_more=true, but the page after it (${name}=${value}) is empty`,
    );
  }
}

/**
 * The rule a list breaks by leaving out records seen alive: its own, unless a delete of each one,
 * refused for want of a token, ended before `by` (then the refused request took them), or a delete
 * taken without a token came since each was last shown (it may have taken them). Of a walk, no
 * more: the walk may have lost them between its pages.
 */
function lackingInWalk(
  reading: Reading,
  state: SessionState,
  world: World,
  missing: string[],
  by: number,
): Lacks {
  return (
    refusedTook(state, missing, by) ??
    takenBy(world, missing, by, (taker) => taker.withoutToken === true) ??
    theList(reading, state, world, missing, by)
  );
}

/**
 * The list's own rule, held (`World.held`) when a delete of the token that ended since each
 * missing record was last shown, and before `by`, may have taken it: a later retrieve's 404 tells
 * it gone (the delete's fault, judge/traces.ts), a later answer that shows it alive tells the list
 * left it out.
 */
function theList(reading: Reading, state: SessionState, world: World, missing: string[], by: number): Lacks {
  const rule = listRule(reading);
  const taken = (id: string) => {
    const known = world.messages.get(id) ?? world.contacts.get(id);
    return (
      known !== undefined &&
      takerOf(world, { learntAt: known.learntAt, conversation: known.conversationId }, by) !== undefined
    );
  };
  if (missing.length === 0 || !missing.every(taken)) return { rule, after: '' };
  const { exchange } = reading;
  return {
    rule,
    after: '',
    hold: (problem) =>
      noteHeld(state, world, {
        rule,
        problem,
        request: `${exchange.method} ${reading.path}${reading.query.size > 0 ? `?${reading.query.toString()}` : ''}`,
        at: exchange.finishedAt,
        ids: new Set(missing.map(copy)),
      }),
  };
}

/**
 * A held charge of a list (`World.held`) decided by this answer: a record it lacked, shown alive
 * by an answer asked for more than --settle-ms after the list (a delete's effects on lists may lag
 * that long), was left out by the list, whose rule it breaks; one a retrieve answers 404 or 410
 * for is gone, and the list owes nothing for it.
 */
export function heldDecided(
  v: Verdicts,
  reading: Reading,
  state: SessionState,
  world: World | undefined,
  settleMs: number,
): void {
  if (!world || world.held.length === 0) return;
  const { exchange, route } = reading;
  if (
    exchange.method === 'GET' &&
    [404, 410].includes(exchange.status) &&
    (route.kind === 'contact' || route.kind === 'message')
  ) {
    for (const held of [...world.held]) {
      held.ids.delete(route.id);
      if (held.ids.size === 0) dropHeld(state, world, held);
    }
    return;
  }
  if (!reading.ok) return;
  const { contacts, messages } = itemsOf(reading);
  for (const [items, kind] of [
    [contacts, 'contact'],
    [messages, 'message'],
  ] as const)
    for (const item of items) {
      const id = idOf(item);
      const held = world.held.find((h) => h.ids.has(id) && exchange.startedAt > h.at + settleMs);
      if (!held) continue;
      v.check(
        held.rule,
        `${held.problem}; after that list (${held.request}), this answer shows the ${kind} ${id}, which it lacked, alive: no delete took it, the list left it out`,
      );
      dropHeld(state, world, held);
    }
}

/**
 * The same, of a list shown on one page, where a delete may have taken them too: each is a message
 * that a delete of another message of its conversation took since it was last shown (`takerOf`),
 * and that delete broke its rule. Of any other record, a list that leaves it out says less than a
 * retrieve's 404: the list may have lost it.
 */
function lackingOnPage(
  reading: Reading,
  state: SessionState,
  world: World,
  missing: string[],
  by: number,
): Lacks {
  return (
    refusedTook(state, missing, by) ??
    takenBy(
      world,
      missing,
      by,
      (taker, conversation) =>
        taker.withoutToken === true || (taker.kind === 'message' && taker.conversation === conversation),
    ) ??
    theList(reading, state, world, missing, by)
  );
}

/**
 * The delete that took every missing record, when each is a message and the delete that took it
 * since it was last shown (`takerOf`) is one `took` accepts: its rule.
 */
function takenBy(
  world: World,
  missing: string[],
  by: number,
  took: (taker: NonNullable<ReturnType<typeof takerOf>>, conversation: unknown) => boolean,
): { rule: string; after: string } | undefined {
  const takers = missing.map((id) => {
    const message = world.messages.get(id);
    if (!message) return undefined;
    const taker = takerOf(world, { learntAt: message.learntAt, conversation: message.conversationId }, by);
    return taker && took(taker, message.conversationId) ? taker : undefined;
  });
  if (takers.length === 0 || !takers.every((t) => t !== undefined)) return undefined;
  const taker = takers[0]!;
  return { rule: deleteRule(taker), after: `, after ${deleteShown(taker)}, which named none of them` };
}

/** Whether deletes of every missing record, refused for want of a token, ended before `by`. */
function refusedTook(
  state: SessionState,
  missing: string[],
  by: number,
): { rule: string; after: string } | undefined {
  if (missing.length === 0) return undefined;
  const refused = missing.map((id) => state.refusedDeletes.get(id));
  if (!refused.every((r) => r !== undefined && r.at <= by)) return undefined;
  const each = missing.length > 1 ? 'each' : 'it';
  return {
    rule: 'api.auth-required',
    after: `, after a DELETE of ${each} without a valid token was refused (${refused[0]!.status})`,
  };
}

/** The rule of a list that leaves out a record it holds. */
function listRule(reading: Reading): string {
  return reading.route.kind === 'contacts'
    ? 'contacts.list'
    : reading.query.get('conversation_id') === null
      ? 'messages.list.all-conversations'
      : 'messages.list.conversation-filter';
}

/**
 * The records of the page's list the session saw alive by `settledBy`, but those a delete on its
 * way may have taken (`doubtful`). Not for `active`, whose meaning the document leaves open.
 */
function aliveIn(reading: Reading, world: World, settledBy: number, doubtful: Set<string>): string[] {
  const conversation = reading.query.get('conversation_id');
  return reading.route.kind === 'contacts'
    ? [...world.contacts].filter(([id, c]) => c.seenAt <= settledBy && !doubtful.has(id)).map(([id]) => id)
    : [...world.messages]
        .filter(
          ([id, m]) =>
            m.seenAt <= settledBy &&
            !doubtful.has(id) &&
            !doubtful.has(String(m.conversationId)) &&
            (conversation === null || m.conversationId === conversation),
        )
        .map(([id]) => id);
}

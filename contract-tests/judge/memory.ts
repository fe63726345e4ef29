import type {
  ContactFacts,
  Held,
  Kind,
  Ledger,
  Limits,
  Memory,
  MessageFacts,
  OpenWalk,
  SessionState,
  World,
} from './state';

export type { Limits } from './state';

/**
 * The bounds of what the proxy remembers, whatever the traffic. It keeps the worlds of at most
 * `maxTokens` tokens (the least recently used is forgotten first); in each world at most
 * `maxRecords` contacts and messages (the least recently seen first), as many deletions (the oldest
 * first), twice as many ids' kinds, as many ids created, and OPEN_PAGES pages; and all of it
 * together counts at most `maxBytes`. The bytes counted for a fact are at least the heap it holds
 * (test/contract-kit/proxy-memory.test.ts measures both), so `maxBytes` bounds the heap.
 *
 * Forgetting makes no judgement wrong: the judge reads only what it knows, and a fact forgotten is
 * as if it was never seen. A record forgotten whole is learnt again from the next answer that
 * shows it. One thing a forgotten fact leaves behind: a deletion forgotten could let a late answer,
 * sent before the delete, bring the record back as if alive. So a world learns no record and no
 * page from an exchange that started before the last deletion it forgot (`forgotAt`); a world
 * made anew starts from the last deletion of any world forgotten whole.
 */
export const DEFAULT_LIMITS: Limits = { maxTokens: 1000, maxRecords: 10_000, maxBytes: 16 * 2 ** 20 };

/** The pages with has_more=true a token keeps (its next pages are checked against them). */
const OPEN_PAGES = 100;
/** A longer page is not kept: its next page is not checked. */
const OPEN_PAGE_ITEMS = 1000;
/** The walks a token follows at once, and the lists it keeps a whole page of (judge/walks.ts). */
const WALKS = 16;
const WHOLE_LISTS = 20;
/** The refused creates and the deletes a token remembers (judge/traces.ts). */
const REFUSED = 100;
const DELETES = 20;
/** The lists' charges a token holds undecided (judge/lists.ts). */
const HELD = 20;
/** A longer walk keeps only the records the world knew before it began (keepWalk). */
const WALK_ITEMS = 2000;

export function newMemory(limits: Limits): Memory {
  return {
    limits,
    bytes: 0,
    peakBytes: 0,
    kindHolders: new Map(),
    forgotAt: 0,
    forgotten: { tokens: 0, records: 0 },
  };
}

// What a fact holds, at most, in V8's heap on a 64-bit machine (measured by the memory test):
// a Map's entry with its share of the table, an object with its fields, a string's header.
const ENTRY = 48;
const WORLD = 2_500;
const CONTACT = 600;
const MESSAGE = 700;
/** What an update seen adds to a record: the time, what it added, a list of former values. */
const UPDATED = 300;
const REACTION = 180;
const GONE = 2 * ENTRY;
const PAGE = 200;
/** A value kept with when it was seen (ContactFacts.active, MessageFacts.stamp). */
const SEEN_VALUE = 80;

/** A string's bytes: one a character if all are Latin-1 (V8's one-byte strings), two otherwise. */
function stringBytes(text: string): number {
  return 24 + (/^[\u0000-\u00ff]*$/.test(text) ? text.length : 2 * text.length);
}

const valueBytes = (value: unknown): number => (typeof value === 'string' ? stringBytes(value) : 16);

/**
 * A value as the session keeps it. A string of a parsed answer is its own copy (JSON.parse makes
 * one), and is kept as it is. Anything but a string, a number, a boolean or null is kept as its
 * JSON text: the judge only compares such values with `!==`, and they are never equal to a fresh
 * answer's either.
 */
export function kept(value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/** A string of its own: a slice of the request's URL would keep the whole URL alive (V8). */
export const copy = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

function contactBytes(id: string, facts: ContactFacts): number {
  let bytes = CONTACT + 3 * stringBytes(id) + valueBytes(facts.conversationId);
  for (const value of [...Object.values(facts.stable), ...Object.values(facts.updatable)])
    bytes += valueBytes(value);
  for (const byField of [facts.former, facts.unsettled ?? {}])
    for (const keys of Object.values(byField)) for (const key of keys ?? []) bytes += 8 + stringBytes(key);
  bytes += UPDATED * Object.keys(facts.changedAt).length;
  if (facts.active) bytes += SEEN_VALUE;
  return bytes;
}

function messageBytes(id: string, facts: MessageFacts): number {
  let bytes =
    MESSAGE +
    2 * stringBytes(id) +
    valueBytes(facts.conversationId) +
    valueBytes(facts.createdAt) +
    valueBytes(facts.senderId) +
    valueBytes(facts.text);
  if (facts.updatedAt !== undefined) bytes += UPDATED;
  if (facts.stamp) bytes += SEEN_VALUE;
  for (const texts of [facts.formerTexts, facts.unsettledTexts ?? []])
    for (const text of texts) bytes += 8 + valueBytes(text);
  for (const [name, usernames] of facts.reactions) {
    bytes += REACTION + stringBytes(name);
    for (const username of usernames) bytes += ENTRY + stringBytes(username);
  }
  return bytes;
}

const pageBytes = (key: string, ids: string[]) =>
  PAGE + stringBytes(key) + ids.reduce((sum, id) => sum + 8 + stringBytes(id), 0);

export function newLedger(state: SessionState, authorization: string): Ledger {
  const bytes = WORLD + stringBytes(authorization);
  count(state, bytes);
  return {
    records: new Map(),
    kinds: new Map(),
    created: new Set(),
    bytes,
    lastDeleteAt: 0,
    forgotAt: state.memory.forgotAt,
  };
}

function count(state: SessionState, bytes: number, world?: World): void {
  if (world) world.ledger.bytes += bytes;
  const memory = state.memory;
  memory.bytes += bytes;
  if (memory.bytes > memory.peakBytes) memory.peakBytes = memory.bytes;
}

/** Whether an exchange that started at `startedAt` may teach the world records and pages. */
export const teaches = (world: World, startedAt: number): boolean => startedAt >= world.ledger.forgotAt;

/** A contact or message just learnt (or learnt again): counted anew, and now the most recently seen. */
export function keepRecord(state: SessionState, world: World, kind: 'c' | 'm', id: string): void {
  const key = `${kind}${id}`;
  const before = world.ledger.records.get(key) ?? 0;
  const bytes =
    kind === 'c' ? contactBytes(id, world.contacts.get(id)!) : messageBytes(id, world.messages.get(id)!);
  world.ledger.records.delete(key);
  world.ledger.records.set(key, bytes);
  count(state, bytes - before, world);
}

/** A contact (with the owner of its conversation) or a message no longer kept: deleted, or forgotten. */
export function dropRecord(state: SessionState, world: World, kind: 'c' | 'm', id: string): void {
  const key = `${kind}${id}`;
  count(state, -(world.ledger.records.get(key) ?? 0), world);
  world.ledger.records.delete(key);
  if (kind === 'm') {
    world.messages.delete(id);
    return;
  }
  const conversationId = world.contacts.get(id)?.conversationId;
  if (conversationId !== undefined && world.owners.get(conversationId) === id)
    world.owners.delete(conversationId);
  world.contacts.delete(id);
}

/** A delete the proxy saw: when its answer ended. */
export function noteGone(
  state: SessionState,
  world: World,
  gone: Map<string, number>,
  id: string,
  at: number,
): void {
  if (!gone.has(id)) count(state, GONE + stringBytes(id), world);
  gone.delete(id);
  gone.set(id, at);
  world.ledger.lastDeleteAt = Math.max(world.ledger.lastDeleteAt, at);
}

/**
 * An id that a create sent after its record's delete answered again: it names the new record now
 * (api.unique-ids was judged against it), and views of it are no longer views of the deleted one.
 */
export function noteReused(
  state: SessionState,
  world: World,
  gone: Map<string, number>,
  id: string,
  sent: number,
): void {
  const at = gone.get(id);
  if (at === undefined || at > sent) return;
  gone.delete(id);
  count(state, -(GONE + stringBytes(id)), world);
}

/** A page with has_more=true, by `<list>|<last id>`, and when it was asked for. */
export function notePage(state: SessionState, world: World, key: string, at: number, ids: string[]): void {
  if (ids.length > OPEN_PAGE_ITEMS) return;
  dropPage(state, world, key);
  world.openPages.set(key, { at, ids });
  count(state, pageBytes(key, ids), world);
}

function dropPage(state: SessionState, world: World, key: string): void {
  const page = world.openPages.get(key);
  if (page === undefined) return;
  world.openPages.delete(key);
  count(state, -pageBytes(key, page.ids), world);
}

const idsBytes = (key: string, ids: Iterable<string>): number => {
  let bytes = PAGE + stringBytes(key);
  for (const id of ids) bytes += ENTRY + stringBytes(id);
  return bytes;
};

/** A walk followed on (judge/walks.ts): counted, and the oldest let go past WALKS. */
export function keepWalk(state: SessionState, world: World, walk: OpenWalk): void {
  // A long walk keeps only the records the world knew before it began, which its end is judged by;
  // it no longer gives the list's order (for pages asked for backwards, and the list shown whole).
  if (walk.ids.size > WALK_ITEMS) {
    const before = (id: string) =>
      (world.contacts.get(id)?.seenAt ?? world.messages.get(id)?.seenAt ?? Infinity) <= walk.start;
    const known = [...walk.ids].filter(before);
    if (known.length > WALK_ITEMS) return;
    walk = { ...walk, ids: new Set(known), ordered: false };
  }
  const bytes =
    idsBytes(walk.list, walk.ids) +
    8 * (walk.firstPage.length + walk.lastPage.length) +
    walk.urls.reduce((n, url) => n + stringBytes(url), 0);
  world.walks.push({ ...walk, bytes });
  count(state, bytes, world);
  while (world.walks.length > WALKS) dropWalk(state, world, world.walks[0]!);
}

export function dropWalk(state: SessionState, world: World, walk: OpenWalk): void {
  const at = world.walks.indexOf(walk);
  if (at === -1) return;
  world.walks.splice(at, 1);
  count(state, -(walk.bytes ?? 0), world);
}

/**
 * A write whose form body was refused, or a list asked for with one parameter that was refused
 * (judge/refusals.ts), the oldest let go past REFUSED.
 */
export function noteRefusedRequest(
  state: SessionState,
  world: World,
  which: 'formsRefused' | 'listsRefused',
  key: string,
  status: number,
): void {
  keepNumber(state, world, world[which], key, status, REFUSED);
}

/** Sets `key` in a counted map of numbers, the least recently set let go past `most`. */
function keepNumber(
  state: SessionState,
  world: World,
  map: Map<string, number>,
  key: string,
  value: number,
  most: number,
): void {
  const bytes = (k: string) => ENTRY + 16 + stringBytes(k);
  if (map.delete(key)) count(state, -bytes(key), world);
  map.set(key, value);
  count(state, bytes(key), world);
  while (map.size > most) {
    const oldest = map.keys().next().value as string;
    map.delete(oldest);
    count(state, -bytes(oldest), world);
  }
}

/** A delete the token made, the oldest let go past DELETES. */
export function noteDelete(state: SessionState, world: World, made: World['deletes'][number]): void {
  const bytes = (d: World['deletes'][number]) =>
    ENTRY + 48 + stringBytes(d.id) + stringBytes(d.conversation ?? '');
  world.deletes.push(made);
  count(state, bytes(made), world);
  while (world.deletes.length > DELETES) count(state, -bytes(world.deletes.shift()!), world);
}

/** A list's charge held undecided (`World.held`), the oldest let go past HELD: never made. */
export function noteHeld(state: SessionState, world: World, held: Omit<Held, 'bytes'>): void {
  const bytes =
    ENTRY + 64 + stringBytes(held.rule) + stringBytes(held.problem) + idsBytes(held.request, held.ids);
  world.held.push({ ...held, bytes });
  count(state, bytes, world);
  while (world.held.length > HELD) dropHeld(state, world, world.held[0]!);
}

/** A held charge decided (made, or found no fault), or let go. */
export function dropHeld(state: SessionState, world: World, held: Held): void {
  const at = world.held.indexOf(held);
  if (at === -1) return;
  world.held.splice(at, 1);
  count(state, -held.bytes, world);
}

/** What a refused create would leave (judge/refusals.ts `refusedCreate`), the oldest let go past REFUSED. */
export function noteRefused(
  state: SessionState,
  world: World,
  key: string,
  refusal: { at: number; lacking: boolean },
): void {
  dropRefused(state, world, key);
  world.refused.set(key, refusal);
  count(state, ENTRY + 48 + stringBytes(key), world);
  while (world.refused.size > REFUSED) dropRefused(state, world, world.refused.keys().next().value as string);
}

/** A refused create no longer held against the server: one like it was accepted, or it is forgotten. */
export function dropRefused(state: SessionState, world: World, key: string): void {
  if (!world.refused.delete(key)) return;
  count(state, -(ENTRY + 48 + stringBytes(key)), world);
}

/** The ids of a list shown whole (one page, or a walk that held still), kept for the walks of that list. */
export function keepWholeList(
  state: SessionState,
  world: World,
  key: string,
  ids: string[],
  quiet: number,
  at: number,
  full: boolean,
): void {
  dropWholeList(state, world, key);
  if (ids.length > WALK_ITEMS) return;
  const bytes = idsBytes(key, ids);
  world.wholeLists.set(key, { writes: world.writes, quiet, at, ids: new Set(ids), full, bytes });
  count(state, bytes, world);
  while (world.wholeLists.size > WHOLE_LISTS)
    dropWholeList(state, world, world.wholeLists.keys().next().value as string);
}

/** The most records a page of the list `key` held, if more than any before; as many lists as WHOLE_LISTS. */
export function noteMostOnAPage(state: SessionState, world: World, key: string, held: number): void {
  const before = world.mostOnAPage.get(key);
  if (before === undefined || before < held)
    keepNumber(state, world, world.mostOnAPage, key, held, WHOLE_LISTS);
}

function dropWholeList(state: SessionState, world: World, key: string): void {
  const page = world.wholeLists.get(key);
  if (page === undefined) return;
  world.wholeLists.delete(key);
  count(state, -page.bytes, world);
}

/** An id an answer showed, and its kind: in the world's list and in the index of all tokens. */
export function noteKind(state: SessionState, world: World, id: string, kind: Kind): void {
  const kinds = world.ledger.kinds;
  if (kinds.has(id)) kinds.delete(id);
  else {
    count(state, 2 * (ENTRY + stringBytes(id)), world);
    state.memory.kindHolders.set(id, (state.memory.kindHolders.get(id) ?? 0) + 1);
  }
  kinds.set(id, kind);
  state.kinds.set(id, kind);
}

function dropKind(state: SessionState, world: World, id: string): void {
  world.ledger.kinds.delete(id);
  count(state, -2 * (ENTRY + stringBytes(id)), world);
  const holders = (state.memory.kindHolders.get(id) ?? 1) - 1;
  if (holders > 0) state.memory.kindHolders.set(id, holders);
  else {
    state.memory.kindHolders.delete(id);
    state.kinds.delete(id);
  }
}

/** An id created with this token: in the world's list and in the index of all tokens. */
export function noteCreated(state: SessionState, world: World, id: string, authorization: string): void {
  if (!world.ledger.created.has(id)) count(state, ENTRY + stringBytes(id), world);
  world.ledger.created.add(id);
  state.creators.set(id, authorization);
}

function dropCreated(state: SessionState, world: World, id: string, authorization: string): void {
  world.ledger.created.delete(id);
  count(state, -(ENTRY + stringBytes(id)), world);
  if (state.creators.get(id) === authorization) state.creators.delete(id);
}

/** The oldest deletion the world keeps, and the map it is in. */
function oldestGone(world: World): [Map<string, number>, string, number] | undefined {
  let oldest: [Map<string, number>, string, number] | undefined;
  for (const gone of [world.goneContacts, world.goneMessages, world.goneConversations]) {
    const first = gone.entries().next();
    if (!first.done && (oldest === undefined || first.value[1] < oldest[2]))
      oldest = [gone, first.value[0], first.value[1]];
  }
  return oldest;
}

/**
 * A deletion forgotten: the world learns nothing from an exchange that started before it ended,
 * and keeps no page asked for before it (the judge reads a page after it as a deletion it knows).
 */
function dropGone(state: SessionState, world: World): void {
  const [gone, id, at] = oldestGone(world)!;
  gone.delete(id);
  count(state, -(GONE + stringBytes(id)), world);
  world.ledger.forgotAt = Math.max(world.ledger.forgotAt, at);
  for (const [key, page] of world.openPages) if (page.at < at) dropPage(state, world, key);
  for (const walk of world.walks.filter((w) => w.start < at)) dropWalk(state, world, walk);
}

/** What the world forgets: the records no answer asked for this long first. */
function forgetRecord(state: SessionState, world: World): void {
  const key = world.ledger.records.keys().next().value as string;
  dropRecord(state, world, key[0] as 'c' | 'm', key.slice(1));
  state.memory.forgotten.records += 1;
}

const goneCount = (world: World) =>
  world.goneContacts.size + world.goneMessages.size + world.goneConversations.size;

/** The token's world is dropped whole: forgotten for room, or changed behind the proxy's back. */
export function dropWorld(state: SessionState, authorization: string, at = 0): void {
  const world = state.worlds.get(authorization);
  if (!world) return;
  state.worlds.delete(authorization);
  for (const id of world.ledger.kinds.keys()) dropKind(state, world, id);
  for (const id of world.ledger.created) dropCreated(state, world, id, authorization);
  const memory = state.memory;
  memory.bytes -= world.ledger.bytes;
  memory.forgotAt = Math.max(memory.forgotAt, world.ledger.lastDeleteAt, world.ledger.forgotAt, at);
}

/** After each exchange learnt: the bounds hold again, the token just learnt from kept if it fits. */
export function enforce(state: SessionState, authorization: string): void {
  const { limits, forgotten } = state.memory;
  const world = state.worlds.get(authorization);
  if (world) {
    const ledger = world.ledger;
    while (ledger.records.size > limits.maxRecords) forgetRecord(state, world);
    while (goneCount(world) > limits.maxRecords) dropGone(state, world);
    while (ledger.kinds.size > 2 * limits.maxRecords)
      dropKind(state, world, ledger.kinds.keys().next().value as string);
    while (ledger.created.size > limits.maxRecords)
      dropCreated(state, world, ledger.created.values().next().value as string, authorization);
    while (world.openPages.size > OPEN_PAGES)
      dropPage(state, world, world.openPages.keys().next().value as string);
  }
  const forgetWorld = (key: string) => {
    dropWorld(state, key);
    forgotten.tokens += 1;
  };
  while (state.worlds.size > limits.maxTokens) forgetWorld(state.worlds.keys().next().value as string);
  while (state.memory.bytes > limits.maxBytes && state.worlds.size > 0) {
    const first = state.worlds.keys().next().value as string;
    if (first !== authorization || !world) forgetWorld(first);
    // Alone and still too large: the token sheds what it knows, open pages first.
    else if (world.openPages.size > 0) dropPage(state, world, world.openPages.keys().next().value as string);
    else if (world.walks.length > 0) dropWalk(state, world, world.walks[0]!);
    else if (world.refused.size > 0) dropRefused(state, world, world.refused.keys().next().value as string);
    else if (world.wholeLists.size > 0)
      dropWholeList(state, world, world.wholeLists.keys().next().value as string);
    else if (world.ledger.records.size > 0) forgetRecord(state, world);
    else if (world.ledger.kinds.size > 0)
      dropKind(state, world, world.ledger.kinds.keys().next().value as string);
    else if (world.ledger.created.size > 0)
      dropCreated(state, world, world.ledger.created.values().next().value as string, authorization);
    else if (goneCount(world) > 0) dropGone(state, world);
    else forgetWorld(first);
  }
}

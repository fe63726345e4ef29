import type { Json, PendingWrite, Reading } from '../http/exchange';
import { DEFAULT_PAGE, idOf, isBackParam, listKey, pageOf, recordsAsked, samePageAgain } from './pages';
import { dropWalk, keepWalk, keepWholeList, noteMostOnAPage } from './memory';
import type { OpenWalk, SessionState, World } from './state';
import type { Verdicts } from './verdicts';
import { BODY_TOKENS, linkTargets } from '../../common/paging';

/**
 * Whole walks of a list: a first page, then each next page asked for the way the page before
 * gave it (its last id, a token or a URL in its body, a `Link` header, `page=N+1`, `offset=` the
 * items so far), up to the page that says has_more=false. A walk in which the token wrote nothing
 * (no write of it answered, none on its way) shows every record of its list that the session saw
 * alive before the walk began (with --settle-ms, that long before). One it leaves out breaks the
 * list's rule; or the paging's (lists.pages), when the same list shown whole (on one page, or by
 * another walk that held still), with no write between, held it. Each next page shows no record of
 * the pages before it, and a page asked for backwards holds the records just before its cursor.
 */

/** How many limits' page sizes a world keeps (World.pageSizes). */
const PAGE_SIZES = 8;

/** A list's first page: no parameter but these (a page further on is asked for with another). */
export const FIRST_PAGE_PARAMS = new Set(['limit', 'conversation_id', 'active']);

export const isFirstPage = (reading: Reading): boolean =>
  [...reading.query.keys()].every((name) => FIRST_PAGE_PARAMS.has(name));

/** A path and query from `/v1` on, its parameters sorted: how a next-page URL is told from a request. */
function signature(target: string): string | undefined {
  const at = target.indexOf('/v1/');
  if (at === -1) return undefined;
  const rest = target.slice(at);
  const q = rest.indexOf('?');
  const path = (q === -1 ? rest : rest.slice(0, q)).replace(/\/$/, '');
  const query = new URLSearchParams(q === -1 ? '' : rest.slice(q + 1));
  query.sort();
  return `${path}?${query.toString()}`;
}

/** The ways to the page after this one that the answer itself gives: a token, next-page URLs. */
function pointers(reading: Reading): { token: string | undefined; urls: string[] } {
  const body = reading.body as Json;
  const links = body.links as Json | undefined;
  const urls: string[] = [];
  let token: string | undefined;
  for (const value of [
    ...BODY_TOKENS.map((key) => body[key]),
    links && typeof links === 'object' ? links.next : undefined,
  ]) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const url = typeof value === 'string' ? signature(value) : undefined;
    if (url) urls.push(url);
    else token ??= String(value);
  }
  const header = reading.exchange.responseHeaders.link;
  for (const target of linkTargets(typeof header === 'string' ? header : undefined, 'next')) {
    const url = signature(target);
    if (url) urls.push(url);
  }
  return { token, urls };
}

/** The open walk whose next page this request asks for, if it is one. */
function walkOf(world: World, reading: Reading): OpenWalk | undefined {
  if (isFirstPage(reading)) return undefined;
  const key = listKey(reading);
  const limit = reading.query.get('limit');
  const asked = signature(reading.exchange.url);
  const shown = (pageOf(reading)?.data ?? []).map(idOf);
  // The latest walk first: a list asked for again opens a walk of its own, which the next page
  // continues (an older one's writes may no longer hold).
  return [...world.walks].reverse().find((walk) => {
    // The walk's first or last page again: a parameter the server ignored, not the page after.
    if ([walk.firstPage, walk.lastPage].some((ids) => samePageAgain(ids, shown))) return false;
    if (walk.urls.includes(asked ?? '')) return true;
    if (walk.list !== key || walk.limit !== limit) return false;
    for (const [name, value] of reading.query) {
      // A page asked for backwards is no next page, though it names the last id (judgeBackPage).
      if (FIRST_PAGE_PARAMS.has(name) || isBackParam(name)) continue;
      if (value === walk.lastId || (walk.token !== undefined && value === walk.token)) return true;
      if (name === 'page' && value === String(walk.pages + 1)) return true;
      if (name === 'offset' && value === String(walk.listed)) return true;
    }
    return false;
  });
}

const mineOnTheirWay = (pending: readonly PendingWrite[], reading: Reading) =>
  pending.some((write) => write.authorization === reading.authorization);

/**
 * Whether a write of the token that ended less than --settle-ms before the walk began may have
 * landed in the list while it was walked: the list may show a write that late (its window), and a
 * write landing mid-walk moves the pages as one made then would. Such a walk is judged, and what
 * such a landing explains (a record shown twice, or left out) is not held against the server.
 */
export const lagging = (walk: { quiet: number }, settleMs: number): boolean =>
  settleMs > 0 && walk.quiet < settleMs;

/** Whether nothing of the token's own moved the list since the walk began: no write answered, none on its way. */
const heldStill = (walk: OpenWalk, world: World, pending: readonly PendingWrite[], reading: Reading) =>
  !walk.moved && walk.writes === world.writes && !mineOnTheirWay(pending, reading);

/**
 * How a request asks for the page before a record: `ending_before=<id>`. (`before=<id>` may mean a
 * time, older than that record, which in a list of the newest first is the other way.)
 */
const BACK = /^ending_before$/;

/**
 * The size of the page asked for: the size of the list's first pages with the same limit, or the
 * limit asked for, or the most the server gives for any limit. A server may give fewer than asked
 * (the maximum limit is not shown): a first page that held fewer than its limit and said has_more
 * shows that maximum, and a page then holds that many. With the limit asked for, when one was.
 */
export function pageSize(
  world: World,
  reading: Reading,
): { size: number | undefined; asked: number | undefined } {
  const limit = reading.query.get('limit');
  const given = world.pageSizes.get(limit ?? '');
  const asked = recordsAsked(limit);
  const capped = [...world.pageSizes]
    .filter(([key, size]) => {
      const limitAsked = recordsAsked(key);
      return limitAsked !== undefined && size < limitAsked;
    })
    .map(([, size]) => size);
  const known = [given, asked, ...(asked !== undefined ? capped : [])].filter((n) => n !== undefined);
  return { size: known.length > 0 ? Math.min(...known) : undefined, asked };
}

/**
 * A page asked for backwards from a record (`ending_before=<id>`), with no write since
 * the list was seen in order (a walk under way, or the list shown whole): it holds the records just
 * before that one, as many as it shows, up to the page's size (lists.pages: "and back, where it has
 * one"). A page that is the list's first records again is a parameter ignored, which the document
 * allows; a page asked for with `starting_after` as well is not judged here.
 */
export function judgeBackPage(
  v: Verdicts,
  reading: Reading,
  world: World,
  pending: readonly PendingWrite[],
  settleMs: number,
): void {
  const page = pageOf(reading);
  const back = [...reading.query].find(([name]) => BACK.test(name));
  // Both ways at once: the document does not say which one a server follows, if either.
  if (!page || !back || reading.query.has('starting_after') || mineOnTheirWay(pending, reading)) return;
  const [name, value] = back;
  const key = listKey(reading);
  const whole = world.wholeLists.get(key);
  const seen = [
    ...world.walks
      .filter(
        (w) => w.list === key && w.ordered && !w.moved && w.writes === world.writes && !lagging(w, settleMs),
      )
      .map((w) => w.ids),
    ...(whole && whole.writes === world.writes && !lagging(whole, settleMs) ? [whole.ids] : []),
  ].find((ids) => ids.has(value));
  if (!seen) return;
  const order = [...seen];
  const { size, asked } = pageSize(world, reading);
  if (size === undefined) return;
  const at = order.indexOf(value);
  const shown = page.data.map(idOf);
  // More records than the limit asked for, or than a page holds without one, are the page size's
  // fault (lists.limit, lists.default-page-size), not the paging's.
  if (shown.length > (asked ?? DEFAULT_PAGE)) return;
  // As many as it shows: a page of more than the server gave on a first page, within the limit
  // asked, is the page size's to judge (lists.limit), not the paging's.
  const count = Math.max(shown.length, 1);
  const expected = order.slice(Math.max(0, at - count), at);
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));
  // The list's first page again: the parameter ignored (near the top of the list too, where the
  // records before it are fewer than a page).
  const firstPages = world.walks
    .filter((w) => w.list === key && w.limit === reading.query.get('limit'))
    .map((w) => w.firstPage);
  if ([...firstPages, order.slice(0, size)].some((first) => samePageAgain(first, shown))) return;
  v.check(
    'lists.pages',
    !same(shown, expected) &&
      `the page before ${value} (${name}=${value}) shows ${shown.length} record(s) (${shown.slice(0, 3).join(', ')}${shown.length > 3 ? ', …' : ''}), not the ${expected.length} just before it in the list's order (${expected.slice(-3).join(', ')})`,
  );
}

/**
 * The rule a list breaks by leaving out records seen alive, as lists.ts tells it: with `hold`
 * when a delete may have taken every one of them since it was last shown, to hold the charge
 * until a later answer decides it (`World.held`).
 */
export interface Lacks {
  rule: string;
  after: string;
  hold?: (problem: string) => void;
}

/**
 * A list's problem charged to `rule`; or, when that is the rule `lacks` names and it may hold the
 * charge, held: judged (it counts), and charged later if a later answer shows a record alive.
 */
export function charge(v: Verdicts, rule: string, problem: string | false, lacks: Lacks): void {
  if (problem && rule === lacks.rule && lacks.hold) {
    lacks.hold(problem);
    v.check(rule);
  } else v.check(rule, problem);
}

/**
 * Judges the last page of a walk that held still: the records the session saw alive in the list
 * before the walk began are all on its pages. `alive` gives those records of the page's list,
 * settled by a time, and `lacking` the rule that leaving some out breaks (lists.ts, which the first
 * page shown whole is judged by too).
 */
export function judgeWalk(
  v: Verdicts,
  reading: Reading,
  world: World,
  settleMs: number,
  pending: readonly PendingWrite[],
  alive: (settledBy: number) => string[],
  lacking: (missing: string[]) => Lacks,
): void {
  const page = pageOf(reading);
  if (!page || page.has_more || reading.query.has('active')) return;
  const walk = walkOf(world, reading);
  if (!walk || !heldStill(walk, world, pending, reading)) return;
  // A walk whose pages showed a record twice (lists.pages, judgeNextPage) is judged no further:
  // the record shown again moved the pages after it, and what they left out or where they ended
  // is that fault's too.
  // (One a write landing mid-walk may explain is none: the walk is judged, with nothing held against it.)
  const repeated = walk.repeated || page.data.some((item) => walk.ids.has(idOf(item)));
  if (repeated && !lagging(walk, settleMs)) return;
  const listed = new Set([...walk.ids, ...page.data.map(idOf)]);
  const missing = lagging(walk, settleMs) ? [] : alive(walk.start - settleMs).filter((id) => !listed.has(id));
  const whole = world.wholeLists.get(walk.list);
  const paging =
    whole && whole.writes === walk.writes && !lagging(whole, settleMs)
      ? missing.filter((id) => whole.ids.has(id))
      : [];
  const pages = walk.pages + 1;
  // What the walk showed is the whole list's first records, in its order, and what it left out all
  // comes after them: the walk ended early, and the page that said has_more=false was wrong.
  const order = whole ? [...whole.ids] : [];
  const endedEarly =
    paging.length > 0 &&
    listed.size < order.length &&
    order.slice(0, listed.size).every((id) => listed.has(id)) &&
    paging.every((id) => order.indexOf(id) >= listed.size);
  // A walk that showed every record, whose pages held fewer than its limit with more to come,
  // though one page of the same list held more: the limit gave fewer than it asks, and fewer than
  // the server gives (a server's maximum would cap every page of the list alike).
  const asked = recordsAsked(walk.limit);
  const most = world.mostOnAPage.get(walk.list);
  const held = walk.firstPage.length;
  if (missing.length === 0 && asked !== undefined && held < asked && most !== undefined)
    v.check(
      'lists.limit',
      most > held &&
        `walked with limit=${asked} (${pages} pages, every record shown), its pages held ${held} with more to come, though one page of the same list held ${most}`,
    );
  if (endedEarly)
    v.check(
      'lists.has-more',
      `walked page by page (${pages} pages), the list says has_more=false after ${listed.size} records, the first of the ${order.length} that the same list shown whole held, with no write between (the next would be ${order[listed.size]})`,
    );
  else if (paging.length > 0)
    v.check(
      'lists.pages',
      `walked page by page to its end (${pages} pages), the list leaves out ${paging.length} record(s) that the same list shown on one page held, with no write between (e.g. ${paging[0]})`,
    );
  else {
    // A last page as full as a page gets (its limit, the most the server gives, or without limit
    // the default size) that says has_more=false with records left out: more were there beyond
    // it, and has_more was wrong (as on a first page, lists.ts), unless the walk went by
    // created_at and one it lacks lay within what it showed. A shorter last page ends the list
    // without them: the list's rule.
    //
    // A page before it that said has_more=true but held fewer than the first page: the records
    // were lost between pages (lists.pages). A list that does not hold them gives full pages of
    // the records it holds.
    const lacks = lacking(missing);
    const size = pageSize(world, reading).size ?? DEFAULT_PAGE;
    const theList = missing.length > 0 && lacks.rule !== 'api.auth-required';
    const between = theList ? walk.shortPage : undefined;
    const full =
      theList &&
      between === undefined &&
      page.data.length >= size &&
      !lackedWithin(world, [...listed], missing);
    charge(
      v,
      between !== undefined ? 'lists.pages' : full ? 'lists.has-more' : lacks.rule,
      missing.length > 0 &&
        `walked page by page to its end (${pages} pages, no write between), the list lacks ${missing.length} ${reading.route.kind} seen alive before the walk began (e.g. ${missing[0]})${between !== undefined ? `, though its page ${between} held fewer than its first (${walk.firstPage.length}) and said more would come` : full ? `, though its last page held ${page.data.length}, as many as a page holds, and said has_more=false` : lacks.after}`,
      lacks,
    );
  }
}

/** A record's `created_at` as the session knows it, when it is a number. */
function createdAt(world: World, id: string): number | undefined {
  const value = world.contacts.get(id)?.stable.created_at ?? world.messages.get(id)?.createdAt;
  return typeof value === 'number' ? value : undefined;
}

/**
 * Whether a walk's pages, read in order, went by `created_at` one way (oldest or newest first, not
 * all in one second), and a record they lack lies before the last one they showed that way: left
 * out of the list within what the walk showed, not beyond its end. Without such an order, nothing
 * tells where it lay.
 */
function lackedWithin(world: World, shown: readonly string[], missing: readonly string[]): boolean {
  const times = shown.map((id) => createdAt(world, id));
  if (times.length < 2 || times.some((t) => t === undefined)) return false;
  const known = times as number[];
  const rising = known.every((t, i) => i === 0 || t >= known[i - 1]!);
  const falling = known.every((t, i) => i === 0 || t <= known[i - 1]!);
  if (rising === falling) return false;
  const last = known.at(-1)!;
  return missing.some((id) => {
    const t = createdAt(world, id);
    return t !== undefined && (rising ? t < last : t > last);
  });
}

/**
 * A next page of a walk that held still shows none of the records of the pages before it, whatever
 * the way to it (lists.pages: "no item twice").
 */
export function judgeNextPage(
  v: Verdicts,
  reading: Reading,
  world: World,
  pending: readonly PendingWrite[],
  settleMs: number,
): void {
  const page = pageOf(reading);
  const walk = page && walkOf(world, reading);
  if (!page || !walk || !heldStill(walk, world, pending, reading)) return;
  const again = lagging(walk, settleMs) ? [] : page.data.map(idOf).filter((id) => walk.ids.has(id));
  v.check(
    'lists.pages',
    again.length > 0 &&
      `page ${walk.pages + 1} of a walk that held still shows ${again.length} record(s) of the pages before it again (e.g. ${again[0]})`,
  );
}

/** After a page is judged: a first page opens a walk, a next page moves one on or ends it. */
export function learnWalk(
  state: SessionState,
  world: World,
  reading: Reading,
  pending: readonly PendingWrite[],
): void {
  const page = pageOf(reading);
  if (!page) return;
  const ids = page.data.map(idOf);
  noteMostOnAPage(state, world, listKey(reading), ids.length);
  // A last page as full as a page gets may end the list early (lists.has-more judges that): asked
  // only of a page that ends a list.
  const full = () => ids.length >= (pageSize(world, reading).size ?? DEFAULT_PAGE);
  if (isFirstPage(reading)) {
    if (page.has_more && ids.length > 0) {
      const limit = reading.query.get('limit') ?? '';
      world.pageSizes.delete(limit);
      world.pageSizes.set(limit, ids.length);
      // One more at most: the least recently given limit goes.
      if (world.pageSizes.size > PAGE_SIZES) world.pageSizes.delete(world.pageSizes.keys().next().value!);
    }
    if (page.has_more) keepWalk(state, world, { ...opened(reading, world, pending), ...pointers(reading) });
    else
      keepWholeList(
        state,
        world,
        listKey(reading),
        ids,
        reading.exchange.startedAt - world.lastWriteAt,
        reading.exchange.finishedAt,
        full(),
      );
    return;
  }
  const walk = walkOf(world, reading);
  if (!walk) return;
  dropWalk(state, world, walk);
  if (!page.has_more && !walk.moved && walk.writes === world.writes && !mineOnTheirWay(pending, reading))
    if (walk.ordered)
      keepWholeList(
        state,
        world,
        walk.list,
        [...new Set([...walk.ids, ...ids])],
        walk.quiet,
        reading.exchange.finishedAt,
        full(),
      );
  if (page.has_more)
    keepWalk(state, world, {
      ...walk,
      moved: walk.moved || pending.some((write) => write.authorization === reading.authorization),
      pages: walk.pages + 1,
      listed: walk.listed + ids.length,
      ids: new Set([...walk.ids, ...ids]),
      lastId: ids.at(-1),
      lastPage: ids,
      repeated: walk.repeated || ids.some((id) => walk.ids.has(id)),
      shortPage:
        walk.shortPage ?? (page.has_more && ids.length < walk.firstPage.length ? walk.pages + 1 : undefined),
      ...pointers(reading),
    });
}

/** The walk a first page with has_more=true opens. */
function opened(reading: Reading, world: World, pending: readonly PendingWrite[]) {
  const ids = pageOf(reading)!.data.map(idOf);
  return {
    list: listKey(reading),
    limit: reading.query.get('limit'),
    start: reading.exchange.startedAt,
    writes: world.writes,
    quiet: reading.exchange.startedAt - world.lastWriteAt,
    moved: pending.some((write) => write.authorization === reading.authorization),
    pages: 1,
    listed: ids.length,
    ids: new Set(ids),
    firstPage: ids,
    lastPage: ids,
    ordered: true,
    repeated: false,
    shortPage: undefined,
    lastId: ids.at(-1),
  };
}

import {
  BODY_PREV_TOKENS,
  bodyToken,
  fetchPage,
  idOf,
  linkHeader,
  looksLikeUrl,
  mechanismOf,
  toPath,
  type Json,
  type Page,
  type PageSource,
  type Query,
  type Walk,
} from './paging';

/**
 * Walking a list back, from the last page of a forward walk (./paging.ts) to its first: the way
 * back is not shown either, so the walk tries those it knows after the way forward it found.
 */

/** A way back: the page before the earliest page walked so far. */
type BackMechanism = {
  name: string;
  previous(
    path: string,
    query: Record<string, string>,
    /** Pages so far on the way back; the last one is the earliest. */
    back: Page[],
    /** The forward walk the way back starts from. */
    forward: Page[],
  ): { path: string; query?: Record<string, string> } | undefined;
};

function backMechanisms(forwardName: string, baseUrl: string): BackMechanism[] {
  const list: BackMechanism[] = [
    {
      name: 'a `Link: <…>; rel="prev"` header',
      previous: (_p, _q, back) => {
        const target = linkHeader(back[back.length - 1]!, 'prev', baseUrl);
        return target ? { path: target } : undefined;
      },
    },
    {
      name: 'a previous-page URL in the body',
      previous: (_p, _q, back) => {
        const token = bodyToken(back[back.length - 1]!, BODY_PREV_TOKENS, 'prev');
        if (typeof token !== 'string' || !looksLikeUrl(token, baseUrl)) return undefined;
        const target = toPath(token, baseUrl);
        return target ? { path: target } : undefined;
      },
    },
  ];
  // A previous-page token goes where the next-page token went.
  const param = /^`(\w+)=<next token from the body>`$/.exec(forwardName)?.[1];
  if (param) {
    list.push({
      name: `\`${param}=<previous token from the body>\``,
      previous: (path, query, back) => {
        const token = bodyToken(back[back.length - 1]!, BODY_PREV_TOKENS, 'prev');
        if (typeof token !== 'string' && typeof token !== 'number') return undefined;
        return { path, query: { ...withoutPaging(query), [param]: String(token) } };
      },
    });
  }
  for (const name of ['ending_before', 'before']) {
    list.push({
      name: `\`${name}=<first id>\``,
      previous: (path, query, back) => {
        const first = back[back.length - 1]!.data[0];
        return first ? { path, query: { ...withoutPaging(query), [name]: idOf(first) } } : undefined;
      },
    });
  }
  if (forwardName === '`page=<n>`') {
    list.push({
      name: '`page=<n - 1>`',
      previous: (path, query, back, forward) => {
        const page = forward.length - back.length;
        return page >= 1 ? { path, query: { ...withoutPaging(query), page: String(page) } } : undefined;
      },
    });
  }
  if (forwardName === '`offset=<items so far>`') {
    list.push({
      name: '`offset=<items before the page>`',
      previous: (path, query, back, forward) => {
        const index = forward.length - back.length - 1;
        if (index < 0) return undefined;
        const offset = forward.slice(0, index).reduce((n, p) => n + p.data.length, 0);
        return { path, query: { ...withoutPaging(query), offset: String(offset) } };
      },
    });
  }
  return list;
}

const PAGING_PARAMS = [
  'cursor',
  'page_token',
  'next',
  'starting_after',
  'after',
  'since_id',
  'page',
  'offset',
];
const withoutPaging = (query: Record<string, string>) =>
  Object.fromEntries(Object.entries(query).filter(([key]) => !PAGING_PARAMS.includes(key)));

const sameItems = (a: Page, b: Page) =>
  a.data.length === b.data.length && a.data.every((item, i) => idOf(item) === idOf(b.data[i]!));

/**
 * A page that is the walk's first page again may be the page before the last (a walk of two
 * pages), or the parameter ignored. The page before the first tells: none (an empty page, or no
 * way to ask) where the way back is real, the first page once more where it is ignored.
 */
async function ignored(
  source: PageSource,
  path: string,
  query: Record<string, string>,
  mechanism: BackMechanism,
  forward: Walk,
): Promise<boolean> {
  const first = forward.pages[0]!;
  const target = mechanism.previous(path, query, [first], forward.pages.slice(0, 1));
  if (!target) return false;
  const page = await fetchPage(source, target.path, target.query);
  return page !== undefined && page.data.length > 0;
}

export interface BackWalk {
  /** The way back the kit found, or undefined when the server shows none it knows. */
  mechanism?: string;
  /** The pages on the way back, from the last page of the forward walk to the first. */
  pages: Page[];
  /** Every item of the way back, in the order met. */
  items: Json[];
  repeated: Json[];
}

/**
 * Walks back from the last page of a complete forward walk of two pages or more. A way back is
 * the first mechanism whose page holds only items of the forward walk's page before its last;
 * otherwise the server has none the kit knows, which is no failure (paging is not shown).
 */
export async function walkBack(
  source: PageSource,
  path: string,
  baseQuery: Query,
  forward: Walk,
): Promise<BackWalk> {
  const none: BackWalk = { pages: [], items: [], repeated: [] };
  if (!forward.complete || forward.pages.length < 2) return none;
  const forwardName = mechanismOf(source.baseUrl, path);
  if (!forwardName) return none;
  const query = Object.fromEntries(Object.entries(baseQuery).map(([k, v]) => [k, String(v)]));
  const limit = new URLSearchParams(forward.pages[0]!.exchange.path.split('?')[1] ?? '').get('limit');
  if (limit) query.limit = limit;
  const last = forward.pages[forward.pages.length - 1]!;
  // Only items of the page just before the last: a parameter the server ignores gives the first page.
  const before = new Set(forward.pages[forward.pages.length - 2]!.data.map(idOf));
  for (const mechanism of backMechanisms(forwardName, source.baseUrl)) {
    const target = mechanism.previous(path, query, [last], forward.pages);
    if (!target) continue;
    const page = await fetchPage(source, target.path, target.query);
    if (!page || page.data.length === 0 || !page.data.every((item) => before.has(idOf(item)))) continue;
    if (sameItems(page, forward.pages[0]!) && (await ignored(source, path, query, mechanism, forward)))
      continue;
    source.observe?.('paging back', mechanism.name);
    const pages = [last, page];
    const items = [...last.data];
    const repeated: Json[] = [];
    const seen = new Set(items.map(idOf));
    const take = (p: Page): boolean => {
      const known = seen.size;
      for (const item of p.data) {
        if (seen.has(idOf(item))) repeated.push(item);
        else {
          seen.add(idOf(item));
          items.push(item);
        }
      }
      return seen.size > known;
    };
    take(page);
    // Back to the first page: stop on an empty page, or once every item was met again.
    while (seen.size < forward.items.length && pages.length <= forward.pages.length + 1) {
      const next = mechanism.previous(path, query, pages, forward.pages);
      const previous = next && (await fetchPage(source, next.path, next.query));
      if (!previous || previous.data.length === 0) break;
      pages.push(previous);
      if (!take(previous)) break;
    }
    return { mechanism: mechanism.name, pages, items, repeated };
  }
  source.observe?.('paging back', 'none found');
  return none;
}

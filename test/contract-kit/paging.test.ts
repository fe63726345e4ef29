import { walk, type PageSource } from '../../common/paging';
import { walkBack } from '../../common/paging-back';

/**
 * How the kit's walks find a server's paging (common/paging.ts, common/paging-back.ts), on lists
 * served by hand.
 */
describe('finding the next page', () => {
  it('does not take the first page again, with a record that showed late, for a next page that repeats items', async () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}` }));
    let asked = 0;
    // Pages by page=N, ignores any other parameter; says has_more on its last page (its fault); a
    // record written before the walk shows from the second request on.
    const source: PageSource = {
      baseUrl: 'http://late.test',
      get: async (path, query = {}) => {
        if (asked++ === 1) items.unshift({ id: 'late' });
        const page = Number(query.page ?? 1);
        const data = page === 1 ? [...items] : [];
        const body = { has_more: page === 1, data };
        return { method: 'GET', path, status: 200, headers: {}, text: JSON.stringify(body), body };
      },
    };
    const walked = await walk(source, '/v1/contacts', { limit: 100 });
    expect({ flaw: walked.flaw, reason: walked.reason }).toEqual({
      flaw: undefined,
      reason: 'has_more was true, but every next-page mechanism the kit tried answered an empty page',
    });
  });
});

/**
 * The way back that the walk reports (the server profile's `paging back`, which the twin copies):
 * found only where the server honours it. A server that ignores `ending_before` answers its first
 * page, which for a walk of two pages is the page before the last as well.
 */
describe('walking a list back', () => {
  const items = ['a', 'b', 'c', 'd'].map((id) => ({ id }));
  /** A list of four paged by `page=N` (limit 2), `ending_before` honoured or not. */
  function server(honoursEndingBefore: boolean, baseUrl: string): PageSource {
    return {
      baseUrl,
      get: async (path, query = {}) => {
        const limit = Number(query.limit ?? 2);
        let from = (Number(query.page ?? 1) - 1) * limit;
        if (honoursEndingBefore && query.ending_before !== undefined) {
          const at = items.findIndex((item) => item.id === query.ending_before);
          from = Math.max(0, at - limit);
          const data = items.slice(from, at);
          return {
            method: 'GET',
            path,
            status: 200,
            headers: {},
            text: '',
            body: { has_more: from > 0, data },
          };
        }
        const data = items.slice(from, from + limit);
        const body = { has_more: from + limit < items.length, data };
        return { method: 'GET', path, status: 200, headers: {}, text: JSON.stringify(body), body };
      },
    };
  }

  it('does not take an ignored ending_before for a way back, though it answers the page before the last', async () => {
    const source = server(false, 'http://ignores.test');
    const forward = await walk(source, '/v1/contacts', { limit: 2 });
    expect(forward.items.map((i) => i.id)).toEqual(['a', 'b', 'c', 'd']);
    const back = await walkBack(source, '/v1/contacts', {}, forward);
    expect(back.mechanism).toBe('`page=<n - 1>`');
  });

  it('finds ending_before where the server honours it', async () => {
    const source = server(true, 'http://honours.test');
    const forward = await walk(source, '/v1/contacts', { limit: 2 });
    const back = await walkBack(source, '/v1/contacts', {}, forward);
    expect({ mechanism: back.mechanism, items: back.items.map((i) => i.id) }).toEqual({
      mechanism: '`ending_before=<first id>`',
      items: ['c', 'd', 'a', 'b'],
    });
  });
});

import { isObject, type Json, type Reading } from '../http/exchange';

/** Pages of lists as the judge reads them: which list a page is of, its records and their ids. */

/** The list a page belongs to: its path and the filters that choose its items. */
export function listKey(reading: Reading): string {
  const filter = (name: string) => reading.query.get(name) ?? '';
  return `${reading.path}?conversation_id=${filter('conversation_id')}&active=${filter('active')}`;
}

export const idOf = (item: Json): string => String(item.id);

/** The most records a page holds without limit (the document's default page size). */
export const DEFAULT_PAGE = 10;

/** A `limit` as a number of records, when it is one (a whole number above 0); any other is refused. */
export const recordsAsked = (limit: string | null): number | undefined =>
  limit !== null && /^[1-9][0-9]*$/.test(limit) ? Number(limit) : undefined;

/** The data of a page of results, when the answer is one. */
export function pageOf(reading: Reading): { has_more: boolean; data: Json[] } | undefined {
  const body = reading.body;
  if (!isObject(body) || !Array.isArray(body.data) || typeof body.has_more !== 'boolean') return undefined;
  return { has_more: body.has_more, data: body.data.filter(isObject) };
}

/**
 * Whether a page asked for as the next one is a page before it once more: the paging parameter
 * ignored (the kit tries several), not a next page that shows records twice. A page of several
 * records counts again with what the list gained since (a write that shows late) in it too.
 */
export function samePageAgain(before: readonly string[], shown: readonly string[]): boolean {
  return before.length > 1
    ? before.every((id) => shown.includes(id))
    : shown.length > 0 && before.join('\n') === shown.join('\n');
}

/** A parameter that asks for a page backwards (ending_before, prev, back, ...): no next page, though it names an id. */
export const isBackParam = (name: string): boolean => /before|prev|back/i.test(name);

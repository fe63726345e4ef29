import BTree from 'sorted-btree';
import { errors, quoteId } from '../errors';
import type { Page, Timestamp } from '../types';
import type { PageQuery } from '../input/operations';

/**
 * A record's position in its lists: `created_at * 1e6 + tiebreak`, where the tiebreak orders the
 * records created within the same second by creation (convention C7). One number, so the lists
 * are B+ trees of plain numbers: fast to build, small, and a cursor is found in O(log n).
 * Timestamps up to 2^32 keep every key an exact integer (below 2^53).
 */
export const PER_SECOND = 1_000_000;
export const MAX_TIMESTAMP = 2 ** 32 - 1;

/** One list of records: key -> id, oldest first. */
export type Order = BTree<number, string>;

/** The list of a conversation that has no messages: only read, never written to. */
export const EMPTY: Order = new BTree<number, string>();

/** The key of a record created at `created_at`, after every record of `list` created in that second. */
export function nextKey(list: Order, created_at: Timestamp): number {
  const start = created_at * PER_SECOND;
  const last = list.nextLowerKey(start + PER_SECOND);
  const key = last !== undefined && last >= start ? last + 1 : start;
  if (key >= start + PER_SECOND) throw new Error(`more than ${PER_SECOND} records in one second`);
  return key;
}

/**
 * Records with their keys, in creation order (sorted by created_at, ties kept in the order
 * given). Built as fresh literals of one shape: a million of them must be cheap to make and to read.
 */
export function keyed<T extends { created_at: number }, R>(
  list: readonly T[],
  make: (item: T, key: number) => R,
): R[] {
  let previous = -1;
  let tiebreak = 0;
  return creationOrder(list).map((index) => {
    const item = list[index]!;
    tiebreak = item.created_at === previous ? tiebreak + 1 : 0;
    previous = item.created_at;
    return make(item, item.created_at * PER_SECOND + tiebreak);
  });
}

/** How many indexes the packed sort of creationOrder holds beside a created_at (2^21). */
const INDEX_BITS = 2 ** 21;

/**
 * Indexes of `list` sorted by created_at, ties in list order. `indexes` is how many the packed
 * sort holds; a longer list is sorted with a comparator (tests pass a small one to reach that path).
 */
export function creationOrder(list: readonly { created_at: number }[], indexes = INDEX_BITS): number[] {
  if (list.length > indexes) {
    return Array.from(list.keys()).sort((a, b) => list[a]!.created_at - list[b]!.created_at || a - b);
  }
  // created_at < 2^32 and index < 2^21 pack into one exact double: a comparator-free numeric
  // sort of a typed array, many times faster than sorting objects for a million messages.
  const packed = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) packed[i] = list[i]!.created_at * indexes + i;
  packed.sort();
  return Array.from(packed, (value) => value % indexes);
}

/**
 * One page of `list`, newest first (C7), with the cursors of C8: a cursor must be an item
 * of this very list.
 */
export function pageOf<R extends { key: number }, T>(
  list: Order,
  query: PageQuery,
  records: { get(id: string): R | undefined },
  render: (record: R) => T,
): Page<T> {
  const cursorKey = (param: 'starting_after' | 'ending_before', id: string): number => {
    const record = records.get(id);
    if (record === undefined || list.get(record.key) !== id) {
      throw errors.invalid(
        param,
        `${quoteId(id)} is not an item of this list. Pass the id of an item from a page you got.`,
      );
    }
    return record.key;
  };
  const ids: string[] = [];
  const take = query.limit + 1;
  if (query.ending_before !== undefined) {
    // Walk towards newer items from the cursor, then show them newest first.
    const from = cursorKey('ending_before', query.ending_before);
    for (
      let key = list.nextHigherKey(from);
      key !== undefined && ids.length < take;
      key = list.nextHigherKey(key)
    ) {
      ids.push(list.get(key)!);
    }
    const has_more = ids.length > query.limit;
    return {
      has_more,
      data: ids
        .slice(0, query.limit)
        .reverse()
        .map((id) => render(records.get(id)!)),
    };
  }
  const iterator =
    query.starting_after !== undefined
      ? list.entriesReversed(cursorKey('starting_after', query.starting_after), undefined, true)
      : list.entriesReversed();
  for (const [, id] of iterator) {
    if (ids.length === take) break;
    ids.push(id);
  }
  const has_more = ids.length > query.limit;
  return { has_more, data: ids.slice(0, query.limit).map((id) => render(records.get(id)!)) };
}

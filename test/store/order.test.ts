import BTree from 'sorted-btree';
import { creationOrder, keyed, MAX_TIMESTAMP, nextKey, PER_SECOND, type Order } from '../../src/store/order';

const SECOND = 1_700_000_000;

/** A list holding records at these keys (the ids are only labels). */
function listOf(...keys: number[]): Order {
  return new BTree<number, string>(keys.map((key) => [key, `id${key}`]));
}

describe('nextKey (a new record’s place in a list, C7)', () => {
  it('starts a second at created_at * 1e6 when nothing was created in it', () => {
    expect(nextKey(listOf(), SECOND)).toBe(SECOND * PER_SECOND);
    // Records of the seconds before and after do not move it.
    expect(nextKey(listOf((SECOND - 1) * PER_SECOND + 5, (SECOND + 1) * PER_SECOND), SECOND)).toBe(
      SECOND * PER_SECOND,
    );
  });

  it('places a record after every record of the same second', () => {
    const list = listOf();
    for (let i = 0; i < 3; i++) list.set(nextKey(list, SECOND), `r${i}`);
    expect([...list.keys()]).toEqual([0, 1, 2].map((i) => SECOND * PER_SECOND + i));
    expect(nextKey(list, SECOND)).toBe(SECOND * PER_SECOND + 3);
  });

  it('keeps creation order within an earlier second when the clock goes back', () => {
    const list = listOf();
    const add = (at: number, id: string) => list.set(nextKey(list, at), id);
    add(SECOND, 'a');
    add(SECOND, 'b');
    add(SECOND - 100, 'c'); // the clock jumped back: older than a and b
    add(SECOND - 100, 'd');
    add(SECOND, 'e');
    expect([...list.values()]).toEqual(['c', 'd', 'a', 'b', 'e']);
  });

  it('refuses a record when its second already holds a million', () => {
    const full = listOf(SECOND * PER_SECOND + PER_SECOND - 1);
    expect(() => nextKey(full, SECOND)).toThrow(`more than ${PER_SECOND} records in one second`);
    expect(nextKey(full, SECOND + 1)).toBe((SECOND + 1) * PER_SECOND);
  });

  it('keeps every key an exact integer up to MAX_TIMESTAMP', () => {
    const last = MAX_TIMESTAMP * PER_SECOND + PER_SECOND - 1;
    expect(Number.isSafeInteger(last)).toBe(true);
    expect(nextKey(listOf(MAX_TIMESTAMP * PER_SECOND + 41), MAX_TIMESTAMP)).toBe(
      MAX_TIMESTAMP * PER_SECOND + 42,
    );
  });
});

describe('keyed (records given in any order, as fromData takes them)', () => {
  it('sorts by created_at, keeps the given order for equal created_at, and numbers ties within a second', () => {
    const given = [
      { name: 'late', created_at: SECOND + 1 },
      { name: 'first', created_at: SECOND },
      { name: 'second', created_at: SECOND },
      { name: 'early', created_at: SECOND - 1 },
      { name: 'third', created_at: SECOND },
    ];
    const made = keyed(given, (item, key) => ({ name: item.name, key }));
    expect(made).toEqual([
      { name: 'early', key: (SECOND - 1) * PER_SECOND },
      { name: 'first', key: SECOND * PER_SECOND },
      { name: 'second', key: SECOND * PER_SECOND + 1 },
      { name: 'third', key: SECOND * PER_SECOND + 2 },
      { name: 'late', key: (SECOND + 1) * PER_SECOND },
    ]);
  });

  it('gives keys that nextKey continues from', () => {
    const list = listOf(...keyed([{ created_at: SECOND }, { created_at: SECOND }], (_, key) => key));
    expect(nextKey(list, SECOND)).toBe(SECOND * PER_SECOND + 2);
  });

  it('makes nothing of an empty list', () => {
    expect(keyed([], () => 1)).toEqual([]);
  });
});

describe('creationOrder (indexes sorted by created_at, ties in list order)', () => {
  const list = [9, 3, 9, 1, 3, 9, 0].map((created_at) => ({ created_at }));
  const expected = [6, 3, 1, 4, 0, 2, 5];

  it('sorts with the packed Float64Array when the list is short enough', () => {
    expect(creationOrder(list)).toEqual(expected);
    expect(creationOrder(list, list.length)).toEqual(expected);
  });

  it('sorts with a comparator, to the same order, when the list is longer than the packed sort holds', () => {
    expect(creationOrder(list, 4)).toEqual(expected);
    expect(creationOrder(list, list.length - 1)).toEqual(expected);
  });

  it('packs timestamps up to MAX_TIMESTAMP exactly', () => {
    const edge = [MAX_TIMESTAMP, MAX_TIMESTAMP - 1, MAX_TIMESTAMP, 0].map((created_at) => ({ created_at }));
    expect(creationOrder(edge)).toEqual([3, 1, 0, 2]);
  });

  it('gives nothing for an empty list', () => {
    expect(creationOrder([])).toEqual([]);
  });
});

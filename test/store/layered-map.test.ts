import { LayeredMap } from '../../src/store/layered-map';

describe('LayeredMap', () => {
  it('shares its base with copies and keeps each side’s writes and deletions to itself', () => {
    const built = new LayeredMap<string, number>();
    built.set('a', 1);
    built.set('b', 2);
    const copy = built.clone();
    const other = built.clone();
    copy.set('a', 10);
    copy.delete('b');
    copy.set('c', 3);
    other.delete('a');
    expect([copy.get('a'), copy.get('b'), copy.get('c'), copy.size]).toEqual([10, undefined, 3, 2]);
    expect([other.get('a'), other.get('b'), other.size]).toEqual([undefined, 2, 1]);
    expect([built.get('a'), built.get('b'), built.get('c'), built.size]).toEqual([1, 2, undefined, 2]);
    const again = copy.clone();
    copy.set('d', 4);
    expect([again.get('a'), again.get('c'), again.get('d'), again.size]).toEqual([10, 3, undefined, 2]);
  });
});

const DELETED = Symbol('deleted');

/**
 * A Map that can be copied in O(1): a copy reads through to the shared, never-changed `base` and
 * keeps its own writes (and deletions) in a small overlay. This is what keeps a new token's copy
 * of a million-message world cheap: it costs nothing until it writes, then only what it writes.
 */
export class LayeredMap<K, V> {
  #base: ReadonlyMap<K, V>;
  #own = new Map<K, V | typeof DELETED>();
  #size: number;
  /** The keys written or deleted since the last `takeTouched`, once `track` was called. */
  #touched: Set<K> | undefined;

  constructor(base: ReadonlyMap<K, V> = new Map()) {
    this.#base = base;
    this.#size = base.size;
  }

  get size(): number {
    return this.#size;
  }

  get(key: K): V | undefined {
    const own = this.#own.get(key);
    if (own === DELETED) return undefined;
    return own !== undefined ? own : this.#base.get(key);
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Whether the value of `key` is one this map holds itself, not one it reads through to its base. */
  owns(key: K): boolean {
    const own = this.#own.get(key);
    return own !== undefined && own !== DELETED;
  }

  /** Whether the base this map reads through to has `key` (deleting it then leaves a mark). */
  inBase(key: K): boolean {
    return this.#base.has(key);
  }

  /** The values, the base's first (one value a key; never the deletion marks). */
  *values(): IterableIterator<V> {
    for (const [key, value] of this.#base) if (!this.#own.has(key)) yield value;
    for (const value of this.#own.values()) if (value !== DELETED) yield value;
  }

  set(key: K, value: V): void {
    const own = this.#own.get(key);
    if (own === undefined ? !this.#base.has(key) : own === DELETED) this.#size++;
    this.#own.set(key, value);
    this.#touched?.add(key);
  }

  delete(key: K): boolean {
    if (!this.has(key)) return false;
    this.#size--;
    this.#touched?.add(key);
    if (this.#base.has(key)) this.#own.set(key, DELETED);
    else this.#own.delete(key);
    return true;
  }

  /** The keys this map holds a value or a deletion mark of itself. */
  ownKeys(): K[] {
    return [...this.#own.keys()];
  }

  /** How many keys `ownKeys` would list. */
  get ownSize(): number {
    return this.#own.size;
  }

  /** From now on, note the keys written or deleted (a world kept on disk logs them). */
  track(): void {
    this.#touched ??= new Set();
  }

  /** The keys written or deleted since the last call (or since `track`). */
  takeTouched(): K[] {
    if (this.#touched === undefined || this.#touched.size === 0) return [];
    const keys = [...this.#touched];
    this.#touched.clear();
    return keys;
  }

  /**
   * An independent copy, in O(1) while this map has no writes of its own. Otherwise its writes
   * are first folded into a new shared base (O(1) when there was no base: a freshly built world).
   */
  clone(): LayeredMap<K, V> {
    if (this.#own.size > 0) {
      let merged: Map<K, V>;
      if (this.#base.size === 0) {
        // Nothing to read through to, so the overlay holds no deletion marks: it is the content.
        merged = this.#own as Map<K, V>;
      } else {
        merged = new Map<K, V>();
        for (const [key, value] of this.#base) if (this.#own.get(key) !== DELETED) merged.set(key, value);
        for (const [key, value] of this.#own) if (value !== DELETED) merged.set(key, value);
      }
      this.#base = merged;
      this.#own = new Map();
    }
    return new LayeredMap(this.#base);
  }
}

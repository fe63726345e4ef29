const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const ID_LENGTH = 16;

/** The kinds of record an id names; ids never collide across kinds (C6). */
export type IdKind = 'contact' | 'conversation' | 'message' | 'attachment';

/** A source of 32-bit words, from which ids are drawn. */
export type Words = () => number;

/** A 16-character `[A-Za-z0-9]` id (convention C6), e.g. `WAz8eIbvDR60rouK`, drawn from `words`. */
export function idFrom(words: Words): string {
  let id = '';
  while (id.length < ID_LENGTH) {
    const word = words();
    // 4,294,967,168 = 62 · 69,273,664: rejecting the rest keeps every character equally likely.
    if (word < 4_294_967_168) id += ALPHABET[word % 62];
  }
  return id;
}

/**
 * A deterministic stream of 32-bit words from a text (xorshift seeded by FNV-1a): the same text
 * gives the same words, in the same order.
 */
export function wordsOf(text: string): Words {
  let state = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 0x01000193) >>> 0;
  if (state === 0) state = 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

/**
 * Words at random (the Web Crypto API: the same in Node and in browsers), for a world given no seed
 * or loaded back from where it was kept. Drawn 256 at a time: one call a word cost more than the
 * write that asked for an id.
 */
const pool = new Uint32Array(256);
let drawn = pool.length;
export const randomWords: Words = () => {
  if (drawn === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    drawn = 0;
  }
  return pool[drawn++]!;
};

/** A 32-bit FNV-1a hash of ids, added one at a time, as 8 hex digits: a name for a stream of words. */
export class IdHash {
  #state = 0x811c9dc5;

  add(id: string): this {
    let state = this.#state;
    for (let i = 0; i < id.length; i++) state = Math.imul(state ^ id.charCodeAt(i), 0x01000193);
    // A separator, so that ids run together do not hash as others would.
    this.#state = Math.imul(state ^ 0x2c, 0x01000193) >>> 0;
    return this;
  }

  get text(): string {
    return this.#state.toString(16).padStart(8, '0');
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const ID_LENGTH = 16;

/** The kinds of record an id names; ids never collide across kinds (C6). */
export type IdKind = 'contact' | 'conversation' | 'message' | 'attachment';

/** A 16-character `[A-Za-z0-9]` id (convention C6), e.g. `WAz8eIbvDR60rouK`. */
export function randomId(): string {
  let id = '';
  while (id.length < ID_LENGTH) {
    // The Web Crypto API: the same in Node and in browsers.
    for (const byte of globalThis.crypto.getRandomValues(new Uint8Array(ID_LENGTH * 2))) {
      // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && id.length < ID_LENGTH) id += ALPHABET[byte % 62];
    }
  }
  return id;
}

export const ID_PATTERN = /^[A-Za-z0-9]{16}$/;

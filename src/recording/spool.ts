import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The records of a recording, as the converter reads them: each part in the order walked, and
 * any contact or message again by its place. A spool on disk holds a recording of any size; an
 * account already in memory is one too (`memorySource`).
 */
export interface RecordSource {
  readonly baseUrl: string;
  readonly contacts: number;
  /** Messages of every conversation, as listed (a message listed twice counts twice). */
  readonly messages: number;
  /** Each conversation walked, in the order walked, with how many messages its list gave. */
  readonly conversations: readonly { id: string; messages: number }[];
  /** How many ids the list of every message gave; undefined when it could not be walked. */
  readonly ordered: number | undefined;
  /** Every record of a part, in the order walked (`order`: the ids of the list of every message). */
  scan(part: Part, visit: (value: unknown, index: number) => void): Promise<void>;
  /** One contact or message again, by its index in its part. */
  read(part: 'contacts' | 'messages', index: number): unknown;
}

export type Part = 'contacts' | 'messages' | 'order';

const PARTS: readonly Part[] = ['contacts', 'messages', 'order'];

/** How many records a long loop handles between two turns of the event loop (a signal is handled there). */
const STRIDE = 4096;

/** Gives the event loop a turn every STRIDE calls, so that a long pass can be interrupted. */
export function breather(): () => Promise<void> | undefined {
  let calls = 0;
  return () => (++calls % STRIDE === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined);
}

/** A column of numbers that grows as it is appended to, kept in a typed array. */
class Offsets {
  #values = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.length++] = value;
  }

  at(index: number): number {
    return this.#values[index]!;
  }
}

/**
 * A recording on its way to a fixture: the records as they were walked, one JSON text a line in
 * one temporary file (contacts, then every conversation's messages, then the ids of the list of
 * every message), and in memory only where each line starts. It lives in a folder of its own
 * under the system's temporary folder, which `remove` deletes whatever happened.
 */
export class Spool {
  readonly dir: string;
  readonly #fd: number;
  readonly #offsets = new Offsets();
  readonly #counts: Record<Part, number> = { contacts: 0, messages: 0, order: 0 };
  readonly #conversations: { id: string; messages: number }[] = [];
  #part = 0;
  #size = 0;
  #removed = false;
  #buffer = Buffer.alloc(1 << 16);

  /** `blockBytes`: how much a scan reads at once (tests make it small, to cross many blocks). */
  constructor(
    parent = os.tmpdir(),
    private readonly blockBytes = 4 << 20,
  ) {
    this.dir = mkdtempSync(path.join(parent, 'messaging-fixtures-'));
    this.#fd = openSync(path.join(this.dir, 'records.ndjson'), 'w+');
    this.#offsets.push(0);
  }

  /** A file of the spool's folder, removed with it. */
  file(name: string): string {
    return path.join(this.dir, name);
  }

  /** Writes one page of a part; the parts come in their order, never back. */
  write(part: Part, records: readonly unknown[]): void {
    this.#enter(part);
    if (part === 'messages' && this.#conversations.length === 0)
      throw new Error("the spool's messages come after their conversation");
    if (records.length === 0) return;
    let text = '';
    for (const record of records) {
      const line = `${JSON.stringify(record)}\n`;
      this.#size += Buffer.byteLength(line);
      this.#offsets.push(this.#size);
      text += line;
    }
    writeSync(this.#fd, text);
    this.#counts[part] += records.length;
    if (part === 'messages') this.#conversations.at(-1)!.messages += records.length;
  }

  /** Starts the messages of the next conversation walked. */
  conversation(id: string): void {
    this.#enter('messages');
    this.#conversations.push({ id, messages: 0 });
  }

  #enter(part: Part): void {
    const at = PARTS.indexOf(part);
    if (at < this.#part) throw new Error(`the spool's ${part} come before its ${PARTS[this.#part]}`);
    this.#part = at;
  }

  /** The records written, to be read; `ordered` says whether the list of every message was walked whole. */
  source(baseUrl: string, ordered: boolean): RecordSource {
    const counts = { ...this.#counts };
    const first = { contacts: 0, messages: counts.contacts, order: counts.contacts + counts.messages };
    const line = (part: Part, index: number): [start: number, end: number] => {
      const at = first[part] + index;
      return [this.#offsets.at(at), this.#offsets.at(at + 1) - 1];
    };
    return {
      baseUrl,
      contacts: counts.contacts,
      messages: counts.messages,
      conversations: this.#conversations,
      ordered: ordered ? counts.order : undefined,
      scan: async (part, visit) => {
        const pause = breather();
        // Read in blocks of a few megabytes; a line longer than a block is read on its own.
        let block = Buffer.alloc(0);
        let blockStart = 0;
        let blockEnd = 0;
        for (let i = 0; i < counts[part]; i++) {
          const [start, end] = line(part, i);
          if (start < blockStart || end > blockEnd) {
            const last = first[part] + counts[part];
            const want = Math.max(end - start, Math.min(this.blockBytes, this.#offsets.at(last) - start));
            if (block.length < want) block = Buffer.alloc(want);
            this.#readInto(block, want, start);
            blockStart = start;
            blockEnd = start + want;
          }
          visit(JSON.parse(block.toString('utf8', start - blockStart, end - blockStart)), i);
          await pause();
        }
      },
      read: (part, index) => {
        if (index < 0 || index >= counts[part]) throw new RangeError(`no ${part} #${index} in the spool`);
        const [start, end] = line(part, index);
        if (this.#buffer.length < end - start) this.#buffer = Buffer.alloc(end - start);
        this.#readInto(this.#buffer, end - start, start);
        return JSON.parse(this.#buffer.toString('utf8', 0, end - start));
      },
    };
  }

  #readInto(buffer: Buffer, length: number, position: number): void {
    let done = 0;
    while (done < length) {
      const n = readSync(this.#fd, buffer, done, length - done, position + done);
      if (n === 0) throw new Error('the spool file is shorter than what was written to it');
      done += n;
    }
  }

  /** Deletes the folder and everything in it; safe to call twice, and from a signal handler. */
  remove(): void {
    if (this.#removed) return;
    this.#removed = true;
    try {
      closeSync(this.#fd);
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/** An account already in memory, as a RecordSource: `toFixture`'s, and the tests'. */
export function memorySource(account: {
  baseUrl: string;
  contacts: unknown[];
  conversations: { conversation_id: string; messages: unknown[] }[];
  order?: string[];
}): RecordSource {
  const messages = account.conversations.flatMap((c) => c.messages);
  const parts: Record<Part, readonly unknown[]> = {
    contacts: account.contacts,
    messages,
    order: account.order ?? [],
  };
  return {
    baseUrl: account.baseUrl,
    contacts: account.contacts.length,
    messages: messages.length,
    conversations: account.conversations.map((c) => ({ id: c.conversation_id, messages: c.messages.length })),
    ordered: account.order?.length,
    scan: async (part, visit) => {
      const pause = breather();
      for (let i = 0; i < parts[part].length; i++) {
        visit(parts[part][i], i);
        await pause();
      }
    },
    read: (part, index) => {
      if (index < 0 || index >= parts[part].length) throw new RangeError(`no ${part} #${index}`);
      return parts[part][index];
    },
  };
}

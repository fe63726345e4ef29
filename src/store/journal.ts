import { queryParams } from '../input/form';

/**
 * The journal of a token's requests (`GET /__mock/requests`), in one place: what an entry is, how
 * the core builds one while it answers (its texts cut and copied, its bytes counted), how a token's
 * journal keeps them (Worlds holds one a token, within the bound of all tokens), and how the
 * control route shows them.
 */

/** One answered request, as `GET /__mock/requests` shows it. */
export interface JournalEntry {
  /** Its place in the token's journal: 1 for the first request, one more for each next. */
  seq: number;
  time: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  /** The query parameters, `{}` when the URL has no query (kept as text; parsed when the journal is read). */
  query?: unknown;
  /** The parsed body of a POST or PUT, or a note of its size when it is large (kept as JSON text). */
  body?: unknown;
  /** The answer's body (kept as text; shown parsed when it is whole JSON, else its beginning); null when it has none. */
  answer?: unknown;
  /** Why the answer was not the real one: a `Prefer: code` header, or the token's error switch. */
  forced?: 'prefer' | 'switch';
}

/** An entry while its request is answered: its `seq` is the journal's to give. */
export type JournalDraft = Omit<JournalEntry, 'seq'>;

/** What a journal entry keeps of a text (the path, the query, the body, the answer): its beginning. */
const JOURNAL_EXCERPT = 2048;

/** One token's journal: newest last, at most `size` entries, and the bytes they are counted for. */
export class Journal {
  #entries: JournalEntry[] = [];
  #entryBytes: number[] = [];
  #bytes = 0;
  /** The `seq` of the last entry added; it goes on after the journal is cleared. */
  #seq = 0;

  constructor(private readonly size: number) {}

  get length(): number {
    return this.#entries.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Adds an entry (its `seq` is set here) counted as `bytes`, dropping the oldest beyond the size. */
  add(entry: JournalDraft, bytes: number): void {
    this.#entries.push({ seq: ++this.#seq, ...entry });
    this.#entryBytes.push(bytes);
    this.#bytes += bytes;
    const over = this.#entries.length - this.size;
    if (over > 0) {
      this.#entries.splice(0, over);
      for (const dropped of this.#entryBytes.splice(0, over)) this.#bytes -= dropped;
    }
  }

  /** The most recent entries, newest first; with `since`, only those after that `seq`. */
  recent(limit: number, since = 0): JournalEntry[] {
    const newer = this.#entries.filter((entry) => entry.seq > since);
    return newer.slice(Math.max(0, newer.length - limit)).reverse();
  }

  /** Forgets every entry; returns the bytes they were counted for. */
  clear(): number {
    const bytes = this.#bytes;
    this.#entries = [];
    this.#entryBytes = [];
    this.#bytes = 0;
    return bytes;
  }
}

/**
 * What a journal entry keeps of the request's path, query and body and of the answer: each a text
 * of at most JOURNAL_EXCERPT characters, and a copy of its own. A slice of a longer string would
 * keep the whole of it alive (V8 keeps a slice's parent), so a 2 kB excerpt of a 90 kB answer
 * would hold 90 kB. `total` counts what the entry holds, for the bound of all tokens: the entry
 * (its fields, its time, its place in the journal) and two bytes a character of each text.
 */
export class JournalBytes {
  total = ENTRY_BYTES;

  /** A parsed body as JSON text (parsed again when the journal is read), or a note of its size when it is large. */
  body(value: unknown): string {
    const text = JSON.stringify(value) ?? '';
    return text.length <= JOURNAL_EXCERPT
      ? this.text(text)
      : this.text(JSON.stringify(`(${text.length} characters, not kept)`));
  }

  /** A text, its beginning when it is long (never half a character), copied. */
  text(value: string): string {
    let kept = value;
    if (value.length > JOURNAL_EXCERPT) {
      const high = value.charCodeAt(JOURNAL_EXCERPT - 1);
      kept = `${value.slice(0, high >= 0xd800 && high <= 0xdbff ? JOURNAL_EXCERPT - 1 : JOURNAL_EXCERPT)}…`;
    }
    this.total += STRING_HEADER + 2 * kept.length;
    return copied(kept);
  }
}

/** A journal entry without its texts: its object and fields, its time, its places in two arrays. */
const ENTRY_BYTES = 640;
const STRING_HEADER = 24;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A string of its own with the same characters, holding nothing else alive. Through UTF-8 and back:
 * a web API (the core runs in browsers too), and a few microseconds for two kilobytes.
 */
function copied(text: string): string {
  // Short strings are copies already: V8 makes a slice or a concatenation of a view only from 13 characters.
  return text.length < 13 ? text : decoder.decode(encoder.encode(text));
}

/**
 * A journal entry as `GET /__mock/requests` shows it: the query, the body and the answer, kept as
 * text while requests are answered, parsed here (the query's parameters; the body, whose text is
 * JSON or a quoted note of its size; the answer when it is whole JSON).
 */
export function readable(entry: JournalEntry): JournalEntry {
  const shown = { ...entry };
  if (typeof entry.query === 'string') {
    try {
      shown.query = Object.fromEntries(queryParams(`?${entry.query}`));
    } catch {
      // A query the API refused stays as its text: the answer says why.
    }
  }
  if (typeof entry.body === 'string') shown.body = JSON.parse(entry.body) as unknown;
  if (typeof entry.answer === 'string' && !entry.answer.endsWith('…')) {
    try {
      shown.answer = JSON.parse(entry.answer) as unknown;
    } catch {
      // Not JSON: shown as the text it is.
    }
  }
  return shown;
}

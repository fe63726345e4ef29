import { LRUCache } from 'lru-cache';
import type { World } from './world';

export interface WorldsOptions {
  /** How many tokens keep a world at once; the least recently used is dropped beyond that. */
  maxWorlds: number;
  /** How many requests each token's journal keeps. */
  journalSize: number;
  /**
   * How many bytes (estimated) all worlds together may hold beyond the seeded world they share;
   * the least recently used worlds are dropped beyond that.
   */
  maxTotalBytes: number;
  /** Told when a token's world is dropped to make room. */
  onEvict?: (token: string) => void;
  /** A token's world kept elsewhere (e.g. in a browser's storage), to start from instead of the seeded one. */
  restore?: (token: string) => World | undefined;
}

/** One answered request, as `GET /__mock/requests` shows it. */
export interface JournalEntry {
  /** Its place in the token's journal: 1 for the first request, one more for each next. */
  seq: number;
  time: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  /** The query parameters, when the URL has a query (kept as text; parsed when the journal is read). */
  query?: unknown;
  /** The parsed body of a POST or PUT, or a note of its size when it is large. */
  body?: unknown;
  /** The answer's body (kept as text; shown parsed when it is whole JSON, else its beginning). */
  answer?: unknown;
  /** Why the answer was not the real one: a `Prefer: code` header, or the token's error switch. */
  forced?: 'prefer' | 'switch';
}

/**
 * The switches of one token (`/__mock/switches`): milliseconds added to its API answers, and an
 * error status that its next `remaining` API answers are.
 */
export interface TokenSwitches {
  latency_ms: number | null;
  errors: { status: number; remaining: number } | null;
}

/** What an empty session counts for: its maps, its switches. */
const SESSION_BYTES = 64 * 1024;

interface Session {
  world: World;
  /** The size of the fixture document it was replaced with, if it was. */
  fixtureBytes: number;
  /** Newest last; bounded by `journalSize`. */
  journal: JournalEntry[];
  /** The estimated size of each journal entry, in the same order. */
  entryBytes: number[];
  /** The sum of `entryBytes`, counted against the bound of all worlds. */
  journalBytes: number;
  /** The `seq` of the last entry recorded. */
  seq: number;
  switches: TokenSwitches;
}

/**
 * Each token is one user with its own world (convention C4), made on first use as a copy of
 * the seeded world. The copy is O(1) (see World.clone), and the number of worlds is bounded, so
 * that a stream of new tokens cannot exhaust memory.
 */
export class Worlds {
  readonly #seeded: World;
  readonly #journalSize: number;
  readonly #sessions: LRUCache<string, Session>;
  readonly #restore: WorldsOptions['restore'];

  constructor(seeded: World, options: WorldsOptions) {
    this.#seeded = seeded;
    this.#restore = options.restore;
    this.#journalSize = options.journalSize;
    this.#sessions = new LRUCache<string, Session>({
      max: options.maxWorlds,
      maxSize: options.maxTotalBytes,
      sizeCalculation: (session) =>
        SESSION_BYTES + session.fixtureBytes + session.journalBytes + session.world.written,
      dispose: (_session, token, reason) => {
        if (reason === 'evict') options.onEvict?.(token);
      },
    });
  }

  /** The world of `token`, made now if this is its first request. */
  of(token: string): World {
    return this.#session(token).world;
  }

  /** Replaces the world of `token` with one made from a fixture document of `bytes`; its journal stays. */
  replace(token: string, world: World, bytes: number): void {
    const session = this.#session(token);
    session.world = world;
    session.fixtureBytes = bytes;
    this.#sessions.set(token, session);
  }

  /** Counts again what the world of `token` holds, after a write; may drop other worlds. */
  refresh(token: string): void {
    const session = this.#sessions.get(token);
    if (session !== undefined) this.#sessions.set(token, session);
  }

  /** Back to the seeded world for one token, and no switches; its journal stays. */
  reset(token: string): void {
    const session = this.#session(token);
    session.world = this.#seeded.clone();
    session.fixtureBytes = 0;
    session.switches = noSwitches();
    this.#sessions.set(token, session);
  }

  /** Back to the seeded world for every token. */
  resetAll(): void {
    this.#sessions.clear();
  }

  /**
   * Adds an entry (its `seq` is set here) of about `bytes` to the journal of `token`, dropping the
   * oldest beyond `journalSize`, and counts the journal's size against the bound of all worlds.
   */
  record(token: string, entry: Omit<JournalEntry, 'seq'>, bytes: number): void {
    const session = this.#session(token);
    session.journal.push({ seq: ++session.seq, ...entry });
    session.entryBytes.push(bytes);
    session.journalBytes += bytes;
    const over = session.journal.length - this.#journalSize;
    if (over > 0) {
      session.journal.splice(0, over);
      for (const dropped of session.entryBytes.splice(0, over)) session.journalBytes -= dropped;
    }
    this.#sessions.set(token, session);
  }

  /** The most recent requests of `token`, newest first; with `since`, only those after that `seq`. */
  journal(token: string, limit: number, since = 0): JournalEntry[] {
    const journal = this.#session(token).journal;
    const newer = journal.filter((entry) => entry.seq > since);
    return newer.slice(Math.max(0, newer.length - limit)).reverse();
  }

  /** The switches of `token`, as they stand. */
  switches(token: string): TokenSwitches {
    return this.#session(token).switches;
  }

  setSwitches(token: string, switches: TokenSwitches): void {
    this.#session(token).switches = switches;
  }

  /**
   * The status the next API answer of `token` is forced to by its error switch, if one is on;
   * counts one down, and turns the switch off when it is used up.
   */
  takeForcedError(token: string): number | undefined {
    const switches = this.#session(token).switches;
    const forced = switches.errors;
    if (forced === null) return undefined;
    forced.remaining -= 1;
    if (forced.remaining <= 0) switches.errors = null;
    return forced.status;
  }

  get count(): number {
    return this.#sessions.size;
  }

  #session(token: string): Session {
    let session = this.#sessions.get(token);
    if (session === undefined) {
      session = {
        world: this.#restore?.(token) ?? this.#seeded.clone(),
        fixtureBytes: 0,
        journal: [],
        entryBytes: [],
        journalBytes: 0,
        seq: 0,
        switches: noSwitches(),
      };
      this.#sessions.set(token, session);
    }
    return session;
  }
}

function noSwitches(): TokenSwitches {
  return { latency_ms: null, errors: null };
}

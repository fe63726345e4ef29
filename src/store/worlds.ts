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
  time: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  /** The parsed body of a POST or PUT, or a note of its size when it is large. */
  body?: unknown;
}

/** What an empty session counts for: its maps, its journal. */
const SESSION_BYTES = 64 * 1024;

interface Session {
  world: World;
  /** The size of the fixture document it was replaced with, if it was. */
  fixtureBytes: number;
  /** Newest last; bounded by `journalSize`. */
  journal: JournalEntry[];
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
      sizeCalculation: (session) => SESSION_BYTES + session.fixtureBytes + session.world.written,
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

  /** Back to the seeded world for one token. */
  reset(token: string): void {
    const session = this.#session(token);
    session.world = this.#seeded.clone();
    session.fixtureBytes = 0;
    this.#sessions.set(token, session);
  }

  /** Back to the seeded world for every token. */
  resetAll(): void {
    this.#sessions.clear();
  }

  record(token: string, entry: JournalEntry): void {
    const journal = this.#session(token).journal;
    journal.push(entry);
    if (journal.length > this.#journalSize) journal.splice(0, journal.length - this.#journalSize);
  }

  /** The most recent requests of `token`, newest first. */
  journal(token: string, limit: number): JournalEntry[] {
    const journal = this.#session(token).journal;
    return journal.slice(Math.max(0, journal.length - limit)).reverse();
  }

  get count(): number {
    return this.#sessions.size;
  }

  #session(token: string): Session {
    let session = this.#sessions.get(token);
    if (session === undefined) {
      session = { world: this.#restore?.(token) ?? this.#seeded.clone(), fixtureBytes: 0, journal: [] };
      this.#sessions.set(token, session);
    }
    return session;
  }
}

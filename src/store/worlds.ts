import { LRUCache } from 'lru-cache';
import type { World } from './world';

export interface WorldsOptions {
  /** How many tokens keep a world at once; the least recently used is dropped beyond that. */
  maxWorlds: number;
  /** How many requests each token's journal keeps. */
  journalSize: number;
  /** Told when a token's world is dropped to make room. */
  onEvict?: (token: string) => void;
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

interface Session {
  world: World;
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

  constructor(seeded: World, options: WorldsOptions) {
    this.#seeded = seeded;
    this.#journalSize = options.journalSize;
    this.#sessions = new LRUCache<string, Session>({
      max: options.maxWorlds,
      dispose: (_session, token, reason) => {
        if (reason === 'evict') options.onEvict?.(token);
      },
    });
  }

  /** The world of `token`, made now if this is its first request. */
  of(token: string): World {
    return this.#session(token).world;
  }

  /** Replaces the world of `token` (e.g. with a fixture document); its journal stays. */
  replace(token: string, world: World): void {
    this.#session(token).world = world;
  }

  /** Back to the seeded world for one token. */
  reset(token: string): void {
    this.#session(token).world = this.#seeded.clone();
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
      session = { world: this.#seeded.clone(), journal: [] };
      this.#sessions.set(token, session);
    }
    return session;
  }
}

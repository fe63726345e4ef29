import { Journal, type JournalDraft, type JournalEntry } from './journal';
import type { World } from './world';

export interface WorldsOptions {
  /** How many tokens keep a world at once; the least recently used is dropped beyond that. */
  maxWorlds: number;
  /** How many requests each token's journal keeps. */
  journalSize: number;
  /**
   * How many bytes all tokens together may hold beyond the seeded world they share (their worlds'
   * own records and their journals, counted as in bytes.ts); beyond it, the least recently used
   * tokens are shed: their journals first, then their worlds.
   */
  maxTotalBytes: number;
  /** Told of each shed, in words, for the log. */
  onShed?: (shed: Shed) => void;
  /**
   * A token's world kept elsewhere (a browser's storage, a data dir), to start from instead of the
   * seeded one; `fresh` makes a copy of the seeded world whose new ids are drawn at random.
   */
  restore?: (token: string, fresh: () => World) => World | undefined;
}

/** What was given up to stay within the bounds, and why. */
export interface Shed {
  token: string;
  /** The journal alone (the world stays), or the whole world (and its journal and switches). */
  what: 'journal' | 'world';
  /** The bound that was passed: the number of worlds, or the bytes of all of them. */
  bound: 'worlds' | 'bytes';
  /** The bytes given back. */
  bytes: number;
}

/**
 * The switches of one token (`/__mock/switches`): milliseconds added to its API answers, and an
 * error status that its next `remaining` API answers are.
 */
export interface TokenSwitches {
  latency_ms: number | null;
  errors: { status: number; remaining: number } | null;
}

/**
 * What a token with an unchanged world and an empty journal holds, counted generously: its
 * copy of the seeded world (layered maps and B+ trees that share the seeded ones), its
 * switches, its entry here. Measured at about 3 kB (test/reliability/memory.test.ts).
 */
const SESSION_BYTES = 8 * 1024;

interface Session {
  world: World;
  /** What the world holds beyond the seeded world it may share: a fixture's records, or its writes. */
  worldBytes: number;
  /** Its requests, newest last, bounded by `journalSize`. */
  journal: Journal;
  switches: TokenSwitches;
  /** What this session is counted for in the total (SESSION_BYTES + worldBytes + its journal's bytes). */
  counted: number;
}

/**
 * Each token is one user with its own world (convention C4), made on first use as a copy of the
 * seeded world, and its journal of requests. The copy is O(1) (see World.clone). Both are bounded:
 * at most `maxWorlds` tokens, and `maxTotalBytes` for all of them together, the least recently
 * used tokens shed first (their journals, then their worlds), so that no traffic, however many
 * tokens it uses, grows memory past the bound.
 */
export class Worlds {
  readonly #seeded: World;
  readonly #options: WorldsOptions;
  /** Least recently used first: a token used again moves to the end. */
  readonly #sessions = new Map<string, Session>();
  #total = 0;

  constructor(seeded: World, options: WorldsOptions) {
    this.#seeded = seeded;
    this.#options = options;
  }

  /** The world of `token`, made now if this is its first request. */
  of(token: string): World {
    return this.#session(token).world;
  }

  /** Replaces the world of `token` with one made from a fixture; its journal stays. */
  replace(token: string, world: World): void {
    const session = this.#session(token);
    session.world = world;
    session.worldBytes = world.heldBytes;
    this.#account(token, session);
  }

  /** Counts again what the world of `token` holds, after a write; may shed other tokens. */
  refresh(token: string): void {
    const session = this.#sessions.get(token);
    if (session === undefined) return;
    session.worldBytes = session.world.heldBytes;
    this.#account(token, session);
  }

  /** Back to the seeded world for one token, and no switches; its journal stays. */
  reset(token: string): void {
    const session = this.#session(token);
    session.world = this.#seeded.clone(token);
    session.worldBytes = 0;
    session.switches = noSwitches();
    this.#account(token, session);
  }

  /**
   * Forgets the world of `token` in memory, as a shed does, but unannounced: a kept world that
   * could not take its last write (a full disk) is read back from where it is kept.
   */
  evict(token: string): void {
    const session = this.#sessions.get(token);
    if (session === undefined) return;
    this.#sessions.delete(token);
    this.#total -= session.counted;
    if (this.#last === token) this.#last = undefined;
  }

  /** Whether `token` has its world in memory now. */
  holds(token: string): boolean {
    return this.#sessions.has(token);
  }

  /** Back to the seeded world for every token. */
  resetAll(): void {
    this.#sessions.clear();
    this.#total = 0;
  }

  /**
   * Adds an entry (its `seq` is set here) counted as `bytes` to the journal of `token`, dropping
   * the oldest beyond `journalSize`; may shed other tokens.
   */
  record(token: string, entry: JournalDraft, bytes: number): void {
    const session = this.#session(token);
    session.journal.add(entry, bytes);
    this.#account(token, session);
  }

  /** The most recent requests of `token`, newest first; with `since`, only those after that `seq`. */
  journal(token: string, limit: number, since = 0): JournalEntry[] {
    return this.#session(token).journal.recent(limit, since);
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

  /** The bytes counted for every token together: never more than `maxTotalBytes` for long. */
  get bytes(): number {
    return this.#total;
  }

  /** The bytes counted for one token (0 when it has no world now). */
  bytesOf(token: string): number {
    return this.#sessions.get(token)?.counted ?? 0;
  }

  #session(token: string): Session {
    let session = this.#sessions.get(token);
    if (session === undefined) {
      const restored = this.#options.restore?.(token, () => this.#seeded.clone(null));
      session = {
        world: restored ?? this.#seeded.clone(token),
        worldBytes: restored?.heldBytes ?? 0,
        journal: new Journal(this.#options.journalSize),
        switches: noSwitches(),
        counted: 0,
      };
      this.#sessions.set(token, session);
      this.#account(token, session);
    } else if (this.#last !== token) {
      // The most recently used last.
      this.#sessions.delete(token);
      this.#sessions.set(token, session);
    }
    this.#last = token;
    return session;
  }

  /** The token used last: it is already at the end of the order. */
  #last: string | undefined;

  /** Counts `session` again, then sheds other tokens while a bound is passed. */
  #account(token: string, session: Session): void {
    const counted = SESSION_BYTES + session.worldBytes + session.journal.bytes;
    this.#total += counted - session.counted;
    session.counted = counted;
    this.#shed(token);
  }

  /**
   * Keeps both bounds, never at the expense of `current` (the token being answered, whose own
   * world is bounded by maxWrittenBytes): over `maxWorlds`, the least recently used worlds go;
   * over `maxTotalBytes`, the least recently used journals go first, then whole worlds.
   */
  #shed(current: string): void {
    const { maxWorlds, maxTotalBytes } = this.#options;
    if (this.#sessions.size > maxWorlds) {
      for (const token of this.#sessions.keys()) {
        if (this.#sessions.size <= maxWorlds) break;
        if (token !== current) this.#drop(token, 'worlds');
      }
    }
    if (this.#total <= maxTotalBytes) return;
    for (const [token, session] of this.#sessions) {
      if (this.#total <= maxTotalBytes) return;
      if (token === current || session.journal.length === 0) continue;
      const bytes = session.journal.clear();
      this.#total -= bytes;
      session.counted -= bytes;
      this.#options.onShed?.({ token, what: 'journal', bound: 'bytes', bytes });
    }
    for (const token of this.#sessions.keys()) {
      if (this.#total <= maxTotalBytes) return;
      if (token !== current) this.#drop(token, 'bytes');
    }
  }

  #drop(token: string, bound: Shed['bound']): void {
    const bytes = this.#sessions.get(token)!.counted;
    this.evict(token);
    this.#options.onShed?.({ token, what: 'world', bound, bytes });
  }
}

function noSwitches(): TokenSwitches {
  return { latency_ms: null, errors: null };
}

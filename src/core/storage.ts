import { validateFixture } from '../fixtures';
import { World, type WorldOptions } from '../store/world';

/**
 * Where each token's world can be kept so that it outlives the page or process that made it:
 * the shape of the Web Storage API, so a browser's `localStorage` or `sessionStorage` fits as is.
 */
export interface WorldStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  /** With these two (as Web Storage has), a reset of every world forgets every kept world too. */
  readonly length?: number;
  key?(index: number): string | null;
}

/**
 * Where each token's world is kept beyond memory, the one mechanism for it: a Web Storage
 * (`storage`, KeptWorlds below), or a data dir on the server's disk (`dataDir`, src/durable/).
 */
export interface WorldKeeper {
  /**
   * The kept world of `token`, or none (it starts from the seeded world). `fresh` is a copy of the
   * seeded world, with new ids drawn at random: a kept world's changes are made again on it.
   */
  restore(token: string, fresh: () => World): World | undefined;
  /** After a write of `token`, a reset or a fixture put: keeps what changed. May throw an ApiError. */
  save(token: string, world: World): void;
  forget(token: string): void;
  forgetAll(): void;
  /** Whether a world that leaves memory is still kept (it comes back on its token's next request). */
  readonly durable: boolean;
  /** Makes durable what is not yet (a server closing). */
  flush?(): void;
}

/** Makes a keeper, given what worlds are made with and where log lines go (CoreOptions.keeper). */
export type WorldKeeperOf = (options: WorldOptions, log: (line: string) => void) => WorldKeeper;

const PREFIX = 'messaging-api-mock:world:';

/** Keeps worlds in a WorldStorage as fixture documents, one key per token. */
export class KeptWorlds implements WorldKeeper {
  /** A page's storage holds what the page wrote; a storage that refuses costs the kept copy. */
  readonly durable = false;
  readonly #storage: WorldStorage;
  readonly #options: WorldOptions;
  readonly #log: (line: string) => void;

  constructor(storage: WorldStorage, options: WorldOptions, log: (line: string) => void) {
    this.#storage = storage;
    this.#options = options;
    this.#log = log;
  }

  /** The kept world of `token`; one that cannot be read any more (another version's) is forgotten. */
  restore(token: string): World | undefined {
    const text = this.#attempt(() => this.#storage.getItem(PREFIX + token));
    if (text === undefined || text === null) return undefined;
    try {
      // Its ids go on at random: a stream begun again at each reload would give back the ids of
      // records the user deleted before it.
      return World.fromData(validateFixture(JSON.parse(text)), { ...this.#options, idSeed: undefined });
    } catch {
      this.forget(token);
      return undefined;
    }
  }

  save(token: string, world: World): void {
    this.#attempt(() => this.#storage.setItem(PREFIX + token, JSON.stringify(world.toData())));
  }

  forget(token: string): void {
    this.#attempt(() => this.#storage.removeItem(PREFIX + token));
  }

  forgetAll(): void {
    const { length, key } = this.#storage;
    if (length === undefined || key === undefined) return;
    const keys: string[] = [];
    for (let i = 0; i < length; i++) {
      const name = key.call(this.#storage, i);
      if (name?.startsWith(PREFIX)) keys.push(name);
    }
    for (const name of keys) this.#attempt(() => this.#storage.removeItem(name));
  }

  /** A storage that refuses (full, or blocked by the browser) costs the kept copy, never the answer. */
  #attempt<T>(action: () => T): T | undefined {
    try {
      return action();
    } catch (error) {
      this.#log(
        `the world could not be kept in storage: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }
}

import { LRUCache } from 'lru-cache';
import type { World } from './world';

export interface WorldsOptions {
  /** How many tokens keep a world at once; the least recently used is dropped beyond that. */
  maxWorlds: number;
  /** Told when a token's world is dropped to make room. */
  onEvict?: (token: string) => void;
}

/**
 * Each token is one user with its own world (convention C4), made on first use as a copy of
 * the seeded world. The copy is O(1) (see World.clone), and the number of worlds is bounded, so
 * that a stream of new tokens cannot exhaust memory.
 */
export class Worlds {
  #seeded: World;
  readonly #cache: LRUCache<string, World>;

  constructor(seeded: World, options: WorldsOptions) {
    this.#seeded = seeded;
    this.#cache = new LRUCache<string, World>({
      max: options.maxWorlds,
      dispose: (_world, token, reason) => {
        if (reason === 'evict') options.onEvict?.(token);
      },
    });
  }

  /** The world of `token`, made now if this is its first request. */
  of(token: string): World {
    let world = this.#cache.get(token);
    if (world === undefined) {
      world = this.#seeded.clone();
      this.#cache.set(token, world);
    }
    return world;
  }

  /** Back to the seeded world for one token (its next request gets a fresh copy). */
  reset(token: string): void {
    this.#cache.delete(token);
  }

  resetAll(): void {
    this.#cache.clear();
  }

  get count(): number {
    return this.#cache.size;
  }
}

import type { WorldData } from './store/world';

export interface SeedOptions {
  seed: number;
  contacts: number;
  messages: number;
  /** Called now and then while a large world is generated. */
  onProgress?: (done: number, total: number) => void;
}

export const SEED_DEFAULTS = { seed: 1, contacts: 25, messages: 300 } as const;

/** The seed, contacts and messages asked for, the defaults for what is not. */
export function seedOf(options: Partial<SeedOptions>): SeedOptions {
  const seed = {
    seed: options.seed ?? SEED_DEFAULTS.seed,
    contacts: options.contacts ?? SEED_DEFAULTS.contacts,
    messages: options.messages ?? SEED_DEFAULTS.messages,
    onProgress: options.onProgress,
  };
  if (seed.messages > 0 && seed.contacts === 0) throw new Error('messages need at least one contact.');
  return seed;
}

/**
 * The world of a seed, made without loading more than it needs: the default world is shipped as
 * data (default-world.json, which test/seed.test.ts holds equal to what the generator makes), and
 * only another seed or size loads the generator and faker. In a browser bundle each is a chunk of
 * its own, loaded when a world is first asked for.
 */
export async function seededWorld(options: SeedOptions): Promise<WorldData> {
  if (
    options.seed === SEED_DEFAULTS.seed &&
    options.contacts === SEED_DEFAULTS.contacts &&
    options.messages === SEED_DEFAULTS.messages
  ) {
    const shipped = (await import('./default-world.json')).default as unknown as WorldData;
    options.onProgress?.(options.messages, options.messages);
    return shipped;
  }
  const { generateWorld } = await import('./seed');
  return generateWorld(options);
}

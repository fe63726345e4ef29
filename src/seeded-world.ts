import type { WorldData } from './store/world';

import { SEED_DEFAULTS, type SeedOptions } from './seed-options';

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

/** What a seeded world is made of: its seed and its size, and the defaults. */
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

import { Faker, base, en } from '@faker-js/faker';
import { ApiError } from './errors';
import { REACTIONS, chatLine } from './seed';
import type { World } from './store/world';
import type { Message } from './types';

export interface SimulateOptions {
  /** Seeds the replies: the n-th reply of a world is the same on every run. */
  seed: number;
  /** How long a contact takes to answer, in milliseconds. */
  replyDelayMs?: { min: number; max: number };
}

/**
 * A living conversation (`--simulate`): a few seconds after the user sends a message, the
 * conversation's contact becomes active, sometimes reacts to it, and answers. Each world has its
 * own seeded generator, so what is said is deterministic; only the timestamps follow the clock.
 */
export class Simulator {
  readonly #seed: number;
  readonly #delay: { min: number; max: number };
  readonly #fakers = new WeakMap<World, Faker>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(options: SimulateOptions) {
    this.#seed = options.seed;
    this.#delay = options.replyDelayMs ?? { min: 1500, max: 4000 };
  }

  /** Called after the user sent `message` in `world`. */
  messageSent(world: World, message: Message): void {
    const f = this.#faker(world);
    const delay = f.number.int(this.#delay);
    const reaction = f.datatype.boolean({ probability: 0.35 })
      ? f.helpers.arrayElement(REACTIONS)
      : undefined;
    const reply = chatLine(f);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const contact = world.getContact(message.contact.id);
      if (contact === undefined) return; // deleted meanwhile: nobody is left to answer
      world.touchContact(contact.id, Math.floor(Date.now() / 1000));
      // The world may have changed since: the message deleted, or holding all the reaction names
      // a message may. Such a refusal is the contact's to live with, not a crash of the server.
      if (reaction !== undefined) {
        attempt(() =>
          world.updateMessage(message.id, { reactions: [{ name: reaction, usernames: [contact.username] }] }),
        );
      }
      attempt(() => world.sendMessage({ conversation_id: contact.conversation_id, message: reply }));
    }, delay);
    // In Node, a pending reply does not keep the process alive; browsers have no such notion.
    (timer as { unref?: () => void }).unref?.();
    this.#timers.add(timer);
  }

  /** Cancels every pending reply (on shutdown, so that nothing fires after the server closed). */
  stop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  get pending(): number {
    return this.#timers.size;
  }

  #faker(world: World): Faker {
    let f = this.#fakers.get(world);
    if (f === undefined) {
      f = new Faker({ locale: [en, base], seed: this.#seed });
      this.#fakers.set(world, f);
    }
    return f;
  }
}

/** Runs one simulated action; a refusal by the store (an ApiError) is skipped, anything else is a bug. */
function attempt(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
}

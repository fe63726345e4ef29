import { Faker, base, en } from '@faker-js/faker';
import type { IdKind as Kind } from '../ids';
import { describe } from '../input/params';
import { RECORD_ID } from '../resources/formats';
import { fail, fitsRule, type Report } from './report';

const KINDS: readonly Kind[] = ['contact', 'conversation', 'message', 'attachment'];

/**
 * The fixture's ids: a server's id is kept when the mock can take it (RECORD_ID) and no record
 * of another kind holds it already (C6: ids never collide, across kinds too); otherwise it gets a
 * new one, the same wherever the old one is named. New ids are drawn from the seed. A record is
 * named by its kind and a number (a contact's index, a message's, an attachment's occurrence),
 * and only new ids are kept apart from the ids given: a kept id is the server's own.
 */
export class Ids {
  readonly #taken = new Set<string>();
  /** The server ids of contacts and of conversations so far: two records of a kind must not share one. */
  readonly #defined = { contact: new Set<string>(), conversation: new Set<string>() };
  readonly #pending: [Kind, number][] = [];
  readonly #fresh = new Map(KINDS.map((kind) => [kind, new Map<number, string>()]));
  #drawn = false;
  readonly #faker: Faker;

  constructor(
    seed: number,
    private readonly report: Report,
  ) {
    this.#faker = new Faker({ locale: [en, base], seed });
  }

  /**
   * Registers a record's own id, in creation order. Messages are told apart by their ids when
   * they are read, and attachments by their occurrence, so that only contacts and conversations
   * can name one id twice.
   */
  define(kind: Kind, handle: number, raw: unknown, path: string): void {
    if (this.#drawn) throw new Error('an id was defined after the new ones were drawn');
    if (raw === undefined || raw === null || raw === '') {
      if (kind !== 'attachment') fail(path, 'is missing.');
      this.report.convert('an attachment without an id → a new id');
    } else if (typeof raw !== 'string' && typeof raw !== 'number') {
      fail(path, `must be an id (text or a number), got ${describe(raw)}.`);
    }
    const text = raw === undefined || raw === null ? '' : String(raw);
    if (kind === 'contact' || kind === 'conversation') {
      if (this.#defined[kind].has(text)) fail(path, `'${text}' is the id of two ${kind}s.`);
      this.#defined[kind].add(text);
    }
    if (typeof raw === 'number') this.report.convert('numeric ids → the same digits as text');
    const takeable = text !== '' && fitsRule(text, RECORD_ID);
    if (takeable && !this.#taken.has(text)) this.#taken.add(text);
    else {
      if (text !== '')
        this.report.convert(
          takeable
            ? 'ids that another record has already → new ids, consistently'
            : 'ids that the mock cannot take → new ids, consistently',
        );
      this.#pending.push([kind, handle]);
    }
  }

  /** The fixture id of a defined record, given its server id as text; new ids are drawn on the first call. */
  id(kind: Kind, handle: number, text: string): string {
    if (!this.#drawn) {
      this.#drawn = true;
      for (const [pendingKind, pendingHandle] of this.#pending) {
        let id: string;
        do id = this.#faker.string.alphanumeric({ length: 16, casing: 'mixed' });
        while (this.#taken.has(id));
        this.#taken.add(id);
        this.#fresh.get(pendingKind)!.set(pendingHandle, id);
      }
      // Every id is given now: what was taken matters no more, and holds a string a record.
      this.#pending.length = 0;
      this.#taken.clear();
      this.#defined.contact.clear();
      this.#defined.conversation.clear();
    }
    return this.#fresh.get(kind)!.get(handle) ?? text;
  }
}

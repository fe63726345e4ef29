import { Faker, base, en } from '@faker-js/faker';
import { chatLine } from '../seed';
import type { WorldData } from '../store/world';
import type { ContactData, MessageData, Reaction } from '../types';
import { extensionOf, lastSegment } from './coerce';
import { uriComponent } from '../resources/formats';

/**
 * A fixture with every personal value replaced by faker's: display names, usernames (in reactions
 * too), phone numbers, avatar URLs, message texts, attachment file names and URLs. The same
 * original value gets the same fake everywhere, so that the same person keeps the same name and
 * a reaction still names the contact it named; no fake is ever one of the original values. What
 * is not personal stays: ids, timestamps, reaction names, the shapes of reactions and
 * attachments, file types and sizes, and the extensions of file names and URLs. Seeded: the same
 * fixture and seed give the same result.
 */
export function anonymize(data: WorldData, seed: number): WorldData {
  const originals = new Originals();
  for (const contact of data.contacts) originals.add(contact);
  for (const message of data.messages) originals.add(message);
  const anonymizer = new Anonymizer(seed, originals);
  return {
    contacts: data.contacts.map((contact) => anonymizer.contact(contact)),
    messages: data.messages.map((message) => anonymizer.message(message)),
  };
}

/**
 * Every personal value of a fixture: no fake may be one. A message's text also keeps its fake
 * here once it has one. Texts are most of the personal values of an account, and each one is
 * then one entry and one copy of the text, not two.
 */
export class Originals {
  /** Each original, and for a text, its fake once drawn. */
  readonly #values = new Map<string, string | undefined>();

  /** Adds a record's personal values. */
  add(record: ContactData | MessageData): void {
    if ('username' in record) {
      for (const value of [record.username, record.phone_number, record.avatar_url, record.display_name])
        if (value !== null) this.#add(value);
      return;
    }
    this.#add(record.message);
    for (const reaction of record.reactions)
      for (const list of Object.values(reaction)) for (const u of list) this.#add(u);
    for (const a of record.attachments) {
      this.#add(a.filename);
      this.#add(a.file_url);
    }
  }

  #add(value: string): void {
    if (!this.#values.has(value)) this.#values.set(value, undefined);
  }

  has(value: string): boolean {
    return this.#values.has(value);
  }

  /** The fake of a text that is an original; undefined when it has none yet. */
  textFake(text: string): string | undefined {
    return this.#values.get(text);
  }

  /** Keeps the fake of a text; false when the text is no original (then it is kept elsewhere). */
  keepTextFake(text: string, fake: string): boolean {
    if (!this.#values.has(text)) return false;
    this.#values.set(text, fake);
    return true;
  }
}

/**
 * anonymize, a record at a time, in the fixture's order (every contact, then every message): the
 * same fakes, drawn in the same order. It needs every original first (`Originals`), and keeps
 * the fake of each original it met, for the next time it meets it.
 */
export class Anonymizer {
  readonly #fake: Pseudonyms;

  constructor(seed: number, originals: Originals) {
    this.#fake = new Pseudonyms(new Faker({ locale: [en, base], seed }), originals);
  }

  contact(contact: ContactData): ContactData {
    const fake = this.#fake;
    const person = fake.person();
    const username = fake.username(contact.username, person);
    return {
      ...contact,
      username,
      phone_number: fake.value('phone', contact.phone_number, (f) =>
        f.phone.number({ style: 'international' }),
      ),
      avatar_url: fake.value('avatar', contact.avatar_url, (f) => f.image.avatar()),
      display_name:
        contact.display_name === null || contact.display_name.trim() === ''
          ? contact.display_name
          : contact.display_name === contact.username
            ? username
            : fake.value('name', contact.display_name, () =>
                // One word stays one word: a first name; more: the whole name.
                /\s/.test(contact.display_name!.trim()) ? `${person.first} ${person.last}` : person.first,
              ),
    };
  }

  message(message: MessageData): MessageData {
    const fake = this.#fake;
    return {
      ...message,
      message: fake.value('text', message.message, (f) => chatLine(f)),
      reactions: message.reactions.map((reaction): Reaction =>
        Object.fromEntries(
          Object.entries(reaction).map(([name, usernames]) => [
            name,
            usernames.map((username) => fake.username(username)),
          ]),
        ),
      ),
      attachments: message.attachments.map((attachment) => {
        const filename = fake.value(
          'file',
          attachment.filename,
          (f) => `${f.system.fileName({ extensionCount: 0 })}${extensionOf(attachment.filename)}`,
        );
        // A URL that ends in the file's name ends in the fake one; any other keeps its extension.
        const ending =
          lastSegment(attachment.file_url) === attachment.filename
            ? filename
            : `${fake.faker.string.alphanumeric(12)}${extensionOf(lastSegment(attachment.file_url))}`;
        const file_url = fake.value(
          'url',
          attachment.file_url,
          (f) =>
            `https://files.${f.internet.domainName()}/${f.string.alphanumeric(10)}/${uriComponent(ending)}`,
        );
        return { ...attachment, filename, file_url };
      }),
    };
  }
}

type Kind = 'username' | 'phone' | 'avatar' | 'name' | 'text' | 'file' | 'url';
type Varied = Exclude<Kind, 'text'>;

/** The fakes handed out so far, one map a kind (a text's with its original), and the draws that make new ones. */
class Pseudonyms {
  readonly #given = new Map<Kind, Map<string, string>>();
  /** Fakes already handed out, of any kind: two originals never share one. */
  readonly #used = new Set<string>();

  constructor(
    readonly faker: Faker,
    private readonly originals: Originals,
  ) {}

  person(): { first: string; last: string } {
    return { first: this.faker.person.firstName(), last: this.faker.person.lastName() };
  }

  /** A username made from the person's fake name (a new person when none is given). */
  username(original: string, person?: { first: string; last: string }): string {
    return this.value('username', original, (f) => {
      const { first, last } = person ?? this.person();
      return f.internet.username({ firstName: first, lastName: last }).slice(0, 56);
    });
  }

  /** The fake for `original`: the one it got before, or a new draw that is no original and not yet given. */
  value(kind: Kind, original: string, draw: (faker: Faker) => string): string {
    let given = this.#given.get(kind);
    if (!given) this.#given.set(kind, (given = new Map()));
    const earlier =
      kind === 'text' ? (this.originals.textFake(original) ?? given.get(original)) : given.get(original);
    if (earlier !== undefined) return earlier;
    let fake = draw(this.faker);
    // A few more draws, then a number to tell it apart (faker's pools are finite).
    for (let attempt = 1; this.originals.has(fake) || this.#used.has(fake); attempt++)
      fake =
        attempt < 20
          ? draw(this.faker)
          : kind === 'text'
            ? `${draw(this.faker)} ${draw(this.faker)}`
            : vary(kind, draw(this.faker), attempt);
    if (kind !== 'text' || !this.originals.keepTextFake(original, fake)) given.set(original, fake);
    this.#used.add(fake);
    return fake;
  }
}

/** A fake made different by a number, in a way that keeps it valid for its field (a text takes two lines instead). */
function vary(kind: Varied, fake: string, n: number): string {
  switch (kind) {
    case 'username':
      return `${fake}${n}`;
    case 'phone':
      return `${fake.slice(0, 24)} ${n}`;
    case 'avatar':
    case 'url':
      return `${fake}${fake.includes('?') ? '&' : '?'}v=${n}`;
    case 'file': {
      const extension = extensionOf(fake);
      return `${fake.slice(0, fake.length - extension.length)}_${n}${extension}`;
    }
    case 'name':
      return `${fake} ${n}`;
  }
}

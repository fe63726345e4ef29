import { attachmentPairs, contactForm, messageText, postContact, postMessage, type Json } from './data';
import { is2xx, send, type Exchange, type Pairs } from '../http/http';
import { filesOf, Model, sentReactionsOf, type MessageChange } from './model';
import { reactionNames, reactionPair } from './samples';
import { RuleFailure } from './harness';
import { compareContact, compareMessage } from './compare';
import { recordPath } from '../rules/resources';

/**
 * The ten documented operations on the kit's own data, each applied to the server and, when the
 * server takes it, to the model. A refused operation leaves the model as it was. The answer of an
 * update is compared with the model at once: it "returns the updated object".
 */
export interface Done {
  exchange: Exchange;
  ok: boolean;
  /** The id of what a create made. */
  id?: string;
}

/**
 * The JSON object a create or update answered; undefined when it was refused. A success without
 * one breaks the document's answer format (api.json-objects), not the operation.
 */
export function objectOf(exchange: Exchange): Json | undefined {
  if (!is2xx(exchange)) return undefined;
  const body = exchange.body as Json | undefined;
  if (body && typeof body === 'object' && !Array.isArray(body)) return body;
  throw new RuleFailure(
    `${exchange.method} ${exchange.path} succeeded (${exchange.status}) without a JSON object in its answer`,
    exchange,
    { rule: 'api.json-objects', check: `${exchange.method === 'POST' ? 'create' : 'update'} answer` },
  );
}

/**
 * 2.1, 2.2: an id is its record's unique identifier. A create that answers with the id of a record
 * the kit made before, alive or deleted, gives one id to two records.
 */
function mustBeNewId(model: Model, kind: 'contact' | 'message', id: string, exchange: Exchange): void {
  const alive = kind === 'contact' ? model.contacts.has(id) : model.messages.has(id);
  const gone = kind === 'contact' ? model.goneContacts.has(id) : model.goneMessages.has(id);
  if (alive || gone)
    throw new RuleFailure(
      `the new ${kind} was given the id ${id}, which already named ${alive ? 'another' : 'a deleted'} ${kind} of the kit's`,
      exchange,
      { rule: 'api.unique-ids', check: `a new ${kind}'s id` },
    );
}

/** Fails the rule when a well-formed operation on live data is refused. */
export function mustSucceed(done: Done, rule: string, what: string): void {
  if (!done.ok)
    throw new RuleFailure(`${what} was refused (${done.exchange.status})`, done.exchange, {
      rule,
      check: 'accepted',
    });
}

/** The form of one update of a message: what `parts` holds, in the document's keys. */
export function changePairs(parts: MessageChange): [string, string][] {
  const pairs: [string, string][] = [];
  if (parts.message !== undefined) pairs.push(['message', parts.message]);
  for (const { name, username } of sentReactionsOf(parts)) pairs.push(reactionPair(name, username));
  pairs.push(...filesOf(parts).flatMap((file, i) => attachmentPairs(i, file)));
  return pairs;
}

export class Operations {
  constructor(readonly model: Model = new Model()) {}

  /**
   * An update refused for what it sent (a 4xx but for a token, a missing record or a rate limit)
   * leaves no trace: the record it named, alive, is read back at once, for the judge of every
   * exchange to hold to what it showed before.
   */
  private async refused(exchange: Exchange, path: string | undefined): Promise<Done> {
    if (path && exchange.status >= 400 && exchange.status < 500 && ![401, 404, 429].includes(exchange.status))
      await send('GET', path);
    return { exchange, ok: false };
  }

  /** `extra` sets or (undefined) leaves out a parameter of the kit's usual form. */
  async createContact(
    label: string,
    displayName?: string,
    extra: Record<string, string | undefined> = {},
  ): Promise<Done> {
    const form = contactForm(label, {
      ...(displayName === undefined ? {} : { display_name: displayName }),
      ...extra,
    });
    const exchange = await postContact(form);
    const body = objectOf(exchange);
    if (!body || (typeof body.id !== 'string' && typeof body.id !== 'number')) return { exchange, ok: false };
    if (typeof body.conversation_id !== 'string' || body.conversation_id === '')
      throw new RuleFailure('the created contact has no conversation_id', exchange, {
        rule: 'contacts.create.conversation-id',
        check: 'create answer',
      });
    mustBeNewId(this.model, 'contact', String(body.id), exchange);
    this.model.last = { rule: 'contacts.create', what: 'a contact create' };
    const contact = this.model.addContact(body, Object.fromEntries(form));
    compareContact(contact, body, 'create answer', exchange);
    return { exchange, ok: true, id: contact.id };
  }

  /** An update with display_name, or (undefined) with no parameter at all. */
  renameContact(id: string, displayName: string | undefined): Promise<Done> {
    return this.updateContact(id, displayName === undefined ? {} : { display_name: displayName });
  }

  /** An update that sends `form`: display_name, any other attribute an update takes, or nothing. */
  async updateContact(id: string, form: Readonly<Record<string, string>>): Promise<Done> {
    const exchange = await send('PUT', recordPath('contact', id), { form: Object.entries(form) });
    const body = objectOf(exchange);
    if (!body)
      return this.refused(exchange, this.model.contacts.has(id) ? recordPath('contact', id) : undefined);
    this.model.last = { rule: 'contacts.update.display-name', what: `an update of the contact ${id}` };
    this.model.updateContact(id, form);
    const contact = this.model.contacts.get(id);
    if (contact) compareContact(contact, body, 'update answer', exchange);
    return { exchange, ok: true };
  }

  async deleteContact(id: string): Promise<Done> {
    const exchange = await send('DELETE', recordPath('contact', id));
    if (!is2xx(exchange)) return { exchange, ok: false };
    this.model.last = { rule: 'contacts.delete', what: `the delete of the contact ${id}` };
    this.model.deleteContact(id);
    return { exchange, ok: true };
  }

  /** `attachment`: one file name, or several, sent as attachments[0], attachments[1]… */
  async sendMessage(
    conversationId: string,
    label: string,
    attachment?: string | string[],
    given?: string,
  ): Promise<Done> {
    const text = given ?? messageText(label);
    const files = filesOf({ attachment });
    const pairs: Pairs = [
      ['conversation_id', conversationId],
      ['message', text],
      ...files.flatMap((file, i) => attachmentPairs(i, file)),
    ];
    for (const file of files) this.model.filenames.add(file);
    const exchange = await postMessage(pairs);
    const body = objectOf(exchange);
    if (!body || (typeof body.id !== 'string' && typeof body.id !== 'number')) return { exchange, ok: false };
    mustBeNewId(this.model, 'message', String(body.id), exchange);
    this.model.last = { rule: 'messages.send', what: 'a message send' };
    const message = this.model.addMessage(body, {
      conversation_id: conversationId,
      message: text,
      withAttachments: files.length,
    });
    compareMessage(this.model, message, body, 'create answer', exchange);
    return { exchange, ok: true, id: message.id };
  }

  private async updateMessage(id: string, pairs: Pairs, sent: MessageChange): Promise<Done> {
    for (const file of filesOf(sent)) this.model.filenames.add(file);
    const exchange = await send('PUT', recordPath('message', id), { form: pairs });
    const body = objectOf(exchange);
    if (!body)
      return this.refused(exchange, this.model.messages.has(id) ? recordPath('message', id) : undefined);
    this.model.last = { rule: 'messages.update.keeps-the-rest', what: `an update of the message ${id}` };
    this.model.updateMessage(id, sent, body);
    const message = this.model.messages.get(id);
    if (message) compareMessage(this.model, message, body, 'update answer', exchange);
    return { exchange, ok: true };
  }

  /** One update with any of the three optional parameters; undefined parts are not sent. */
  updateParts(id: string, parts: MessageChange): Promise<Done> {
    return this.updateMessage(id, changePairs(parts), parts);
  }

  editMessage(id: string, label: string, given?: string): Promise<Done> {
    const text = given ?? messageText(label);
    return this.updateMessage(id, [['message', text]], { message: text });
  }

  react(id: string, name: string, username: string): Promise<Done> {
    return this.updateMessage(id, [reactionPair(name, username)], { reaction: { name, username } });
  }

  /** Adds a reaction under the first name the server takes; undefined when it takes none. */
  async reactAny(
    id: string,
    username: string,
    names = reactionNames(),
  ): Promise<(Done & { name: string }) | undefined> {
    for (const name of names) {
      const done = await this.react(id, name, username);
      if (done.ok) return { ...done, name };
      if (done.exchange.status >= 500) return { ...done, name };
    }
    return undefined;
  }

  attach(id: string, filename: string): Promise<Done> {
    return this.updateMessage(id, attachmentPairs(0, filename), { attachment: filename });
  }

  async deleteMessage(id: string): Promise<Done> {
    const exchange = await send('DELETE', recordPath('message', id));
    if (!is2xx(exchange)) return { exchange, ok: false };
    this.model.last = { rule: 'messages.delete.permanent', what: `the delete of the message ${id}` };
    this.model.deleteMessage(id);
    return { exchange, ok: true };
  }
}

import type { Json } from './data';
import { CONTACT_FIELDS, senderStableOf, stableOf, updatedWith, type SentKind } from '../rules/resources';

/**
 * The kit's model of what it created: only what the API document makes certain. It never holds
 * an order, an id format, a status code or a timestamp unit. Every expected value carries the rule
 * that makes it certain, so that a view showing something else fails that rule: a name that a
 * contacts list shows stale after an update fails contacts.update.display-name, a reaction that an
 * edit of the text dropped fails messages.update.keeps-the-rest.
 *
 * `AS_CREATED` stands for "as the create answer showed it": a view that differs then breaks the
 * view's own rule (retrieve, or the list it is in).
 */
export const AS_CREATED = 'as created';

export interface Expected {
  value: unknown;
  /** A rule id, or AS_CREATED. */
  because: string;
  /** A value the kit sent: shown changed only in a way that loses nothing (rules/fields.ts kept()). */
  sent?: SentKind;
  /** Where the document allows several outcomes (an empty optional value, concurrent renames):
   * any of these is right, `value` being the first. */
  oneOf?: unknown[];
}

export interface ModelContact {
  id: string;
  conversationId: string;
  /** username, phone_number, avatar_url, display_name, conversation_id, created_at. */
  fields: Record<string, Expected>;
}

export interface ModelMessage {
  id: string;
  conversationId: string;
  /** conversation_id, message, created_at, updated_at. */
  fields: Record<string, Expected>;
  /** name → username → the rule that keeps that username under that name. */
  reactions: Map<string, Map<string, string>>;
  /** How many attachments, the identities the kit can tell of them, and the rule that keeps them. */
  attachments: { count: number; keys: string[]; because: string };
}

export interface Gone {
  conversationId: string;
  /** The rule that makes it gone: contacts.delete, messages.delete.permanent or the cascade. */
  because: string;
}

/** The fields of a contact that never change, and those an update takes (rules/resources.ts). */
const CONTACT_STABLE = stableOf(CONTACT_FIELDS);
const CONTACT_UPDATES = updatedWith(CONTACT_FIELDS);

/**
 * A field of the table that no rule below makes special, as a request sent it: as sent, for a
 * field the answer must show as sent; undefined (not known) otherwise, or when it was not sent.
 */
function asSent(name: string, sent: Readonly<Record<string, string>>, because: string): Expected | undefined {
  const kind = CONTACT_FIELDS[name]?.sent;
  const value = sent[name];
  return kind === undefined || value === undefined || value === ''
    ? undefined
    : { value, because, sent: kind };
}
/** What a message's `contact` must show of its conversation's contact (2.2; last_active_at may move). */
export const SENDER_FIELDS = senderStableOf(CONTACT_FIELDS);

/**
 * Reads `reactions` as name → usernames. Both readings of 2.3 are allowed: one object per name, or
 * one object holding several names. Undefined when it is not that shape (messages.reactions-shape
 * judges the shape).
 */
export function reactionsOf(value: unknown): Map<string, Set<string>> | undefined {
  if (!Array.isArray(value)) return undefined;
  const found = new Map<string, Set<string>>();
  for (const element of value) {
    if (element === null || typeof element !== 'object' || Array.isArray(element)) return undefined;
    for (const [name, usernames] of Object.entries(element as Json)) {
      if (!Array.isArray(usernames)) return undefined;
      const set = found.get(name) ?? new Set<string>();
      for (const username of usernames) if (typeof username === 'string') set.add(username);
      found.set(name, set);
    }
  }
  return found;
}

/** What one update of a message sends: any of the three optional parameters. */
export interface MessageChange {
  message?: string;
  reaction?: { name: string; username: string };
  /** Several reactions in one update (2.3: the parameter is a list of them). */
  reactions?: { name: string; username: string }[];
  /** One attachment, or several in one update. */
  attachment?: string | string[];
}

/** The reactions an update sends. */
export const sentReactionsOf = (sent: MessageChange): { name: string; username: string }[] => [
  ...(sent.reaction ? [sent.reaction] : []),
  ...(sent.reactions ?? []),
];

/** The file names of the attachments an update sends. */
export const filesOf = (sent: MessageChange): string[] =>
  sent.attachment === undefined
    ? []
    : typeof sent.attachment === 'string'
      ? [sent.attachment]
      : sent.attachment;

/**
 * An empty display_name, where it is optional: the document says neither that it is kept empty
 * nor that it stands for none, so empty, null (2.1: "may be null") or the username ("the username
 * when none is given") are each right; no information was sent that could be lost.
 */
function emptyName(username: string, because: string): Expected {
  return { value: '', because, sent: 'text', oneOf: ['', null, username] };
}

export class Model {
  /** The rule of the last operation the server took, and what it was: a record it did not touch
   * that is gone afterwards was taken by it. */
  last?: { rule: string; what: string };
  readonly contacts = new Map<string, ModelContact>();
  readonly messages = new Map<string, ModelMessage>();
  readonly goneContacts = new Map<string, Gone>();
  readonly goneMessages = new Map<string, Gone>();
  /** The attachments' file names the kit sent: how it tells an attachment without an id. */
  readonly filenames = new Set<string>();

  contactOf(conversationId: string): ModelContact | undefined {
    for (const contact of this.contacts.values())
      if (contact.conversationId === conversationId) return contact;
    return undefined;
  }

  goneConversation(conversationId: string): Gone | undefined {
    // A conversation id given again to a new contact is that contact's, and holds only its messages.
    if (this.contactOf(conversationId)) return undefined;
    for (const gone of this.goneContacts.values()) {
      if (gone.conversationId === conversationId)
        return { conversationId, because: 'contacts.delete.cascades-conversation' };
    }
    return undefined;
  }

  messagesIn(conversationId: string): ModelMessage[] {
    return [...this.messages.values()].filter((m) => m.conversationId === conversationId);
  }

  /** Identity of an attachment: its id when it has one, else the file name the kit sent. */
  attachmentKey(attachment: unknown): string | undefined {
    if (attachment === null || typeof attachment !== 'object') return undefined;
    const record = attachment as Json;
    if (typeof record.id === 'string' || typeof record.id === 'number') return `id:${String(record.id)}`;
    for (const value of Object.values(record)) {
      if (typeof value === 'string' && this.filenames.has(value)) return `name:${value}`;
    }
    return undefined;
  }

  private attachmentKeys(list: unknown): string[] {
    if (!Array.isArray(list)) return [];
    return list.map((a) => this.attachmentKey(a)).filter((k): k is string => k !== undefined);
  }

  /** A contact the server created (its create answer), sent with or without display_name. */
  addContact(body: Json, sent: Record<string, string>): ModelContact {
    const contact: ModelContact = {
      id: String(body.id),
      conversationId: String(body.conversation_id),
      fields: {
        username: { value: sent.username, because: 'contacts.create', sent: 'text' },
        phone_number: { value: sent.phone_number, because: 'contacts.create', sent: 'phone' },
        // Without avatar_url, what the server gives is its choice; as created from then on.
        avatar_url:
          sent.avatar_url !== undefined && sent.avatar_url !== ''
            ? { value: sent.avatar_url, because: 'contacts.create', sent: 'text' }
            : { value: body.avatar_url, because: AS_CREATED },
        display_name:
          sent.display_name === ''
            ? emptyName(sent.username!, 'contacts.create')
            : sent.display_name !== undefined
              ? { value: sent.display_name, because: 'contacts.create', sent: 'text' }
              : {
                  value: sent.username,
                  because: 'contacts.create.display-name-defaults-to-username',
                  sent: 'text',
                },
        conversation_id: { value: body.conversation_id, because: 'contacts.create.conversation-id' },
        created_at: { value: body.created_at, because: AS_CREATED },
      },
    };
    // Any other field a create takes (rules/resources.ts): as sent, or as created when left out.
    for (const [name, field] of Object.entries(CONTACT_FIELDS)) {
      if (name === 'id' || name in contact.fields || field.create === undefined) continue;
      contact.fields[name] = asSent(name, sent, 'contacts.create') ?? {
        value: body[name],
        because: AS_CREATED,
      };
    }
    this.contacts.set(contact.id, contact);
    return contact;
  }

  /**
   * An update was taken with what it sent (display_name, any other attribute an update takes, or
   * nothing): each sent is the new one, and the rest must not have moved.
   */
  updateContact(id: string, sent: Readonly<Record<string, string>>): void {
    const contact = this.contacts.get(id);
    if (!contact) return;
    const kept = (field: string) => {
      const was = contact.fields[field];
      if (was) contact.fields[field] = { ...was, because: 'contacts.update.keeps-the-rest' };
    };
    CONTACT_STABLE.forEach(kept);
    for (const field of CONTACT_UPDATES) {
      if (sent[field] === undefined) kept(field);
      else if (field === 'display_name' && sent[field] === '')
        contact.fields[field] = emptyName(
          String(contact.fields.username!.value),
          'contacts.update.display-name',
        );
      else {
        const value = asSent(field, sent, 'contacts.update.display-name');
        if (value) contact.fields[field] = value;
        else delete contact.fields[field];
      }
    }
  }

  /** display_name was updated (or nothing was sent). */
  renameContact(id: string, displayName: string | undefined): void {
    this.updateContact(id, displayName === undefined ? {} : { display_name: displayName });
  }

  deleteContact(id: string): void {
    const contact = this.contacts.get(id);
    if (!contact) return;
    this.contacts.delete(id);
    this.goneContacts.set(id, { conversationId: contact.conversationId, because: 'contacts.delete' });
    for (const message of this.messagesIn(contact.conversationId)) {
      this.messages.delete(message.id);
      this.goneMessages.set(message.id, {
        conversationId: message.conversationId,
        because: 'contacts.delete.cascades-conversation',
      });
    }
  }

  /** A message the server created (its send answer). */
  addMessage(
    body: Json,
    sent: { conversation_id: string; message: string; withAttachments: number },
  ): ModelMessage {
    const message: ModelMessage = {
      id: String(body.id),
      conversationId: sent.conversation_id,
      fields: {
        conversation_id: { value: sent.conversation_id, because: 'messages.send' },
        message: { value: sent.message, because: 'messages.send', sent: 'text' },
        created_at: { value: body.created_at, because: AS_CREATED },
        // Its time of last change (2.2): null until an update, whatever reads it.
        updated_at: { value: null, because: 'messages.send.new-message-defaults' },
      },
      reactions: new Map(),
      attachments: {
        count: sent.withAttachments,
        keys: sent.withAttachments > 0 ? this.attachmentKeys(body.attachments) : [],
        because:
          sent.withAttachments > 0 ? 'messages.send.attachments' : 'messages.send.new-message-defaults',
      },
    };
    this.messages.set(message.id, message);
    return message;
  }

  /**
   * An update of a message succeeded with these parts: what was sent is what it says, and every
   * part not sent must have stayed as it was. `answer` is the update's answer, for the identities
   * of a new attachment.
   */
  updateMessage(id: string, sent: MessageChange, answer?: Json): void {
    const message = this.messages.get(id);
    if (!message) return;
    for (const field of ['conversation_id', 'created_at', 'message'] as const)
      message.fields[field] = { ...message.fields[field]!, because: 'messages.update.keeps-the-rest' };
    // The time of this change, as its answer shows it: reads must leave it there. An answer that
    // shows none (null) broke the update's rule itself, and a read that shows a time is the same fault.
    message.fields.updated_at = {
      value: answer?.updated_at,
      because: answer?.updated_at === null ? 'messages.update.updated-at' : AS_CREATED,
    };
    if (sent.message !== undefined)
      message.fields.message = { value: sent.message, because: 'messages.update.edit-text', sent: 'text' };
    // An update that also edits the text must keep every reaction and attachment, those it adds
    // included: what such an update loses is laid to the edit (keeps-the-rest).
    const withText = sent.message !== undefined;
    const added = sentReactionsOf(sent);
    const reactionRule =
      added.length > 0 && !withText ? 'messages.update.add-reaction' : 'messages.update.keeps-the-rest';
    for (const usernames of message.reactions.values())
      for (const username of usernames.keys()) usernames.set(username, reactionRule);
    for (const { name, username } of added) {
      const usernames = message.reactions.get(name) ?? new Map<string, string>();
      usernames.set(username, reactionRule);
      message.reactions.set(name, usernames);
    }
    const files = filesOf(sent);
    if (files.length > 0) {
      for (const file of files) this.filenames.add(file);
      const keys = this.attachmentKeys(answer?.attachments);
      const count = message.attachments.count + files.length;
      message.attachments = {
        count,
        keys: keys.length === count ? keys : [...message.attachments.keys],
        because: withText ? 'messages.update.keeps-the-rest' : 'messages.update.add-attachment',
      };
    } else {
      message.attachments = { ...message.attachments, because: 'messages.update.keeps-the-rest' };
    }
  }

  deleteMessage(id: string): void {
    const message = this.messages.get(id);
    if (!message) return;
    this.messages.delete(id);
    this.goneMessages.set(id, {
      conversationId: message.conversationId,
      because: 'messages.delete.permanent',
    });
  }
}

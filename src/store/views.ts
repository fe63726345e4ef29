import type { Contact, Message, MessageContact } from '../types';
import { contactView, messageView as messageCopy, senderView } from './copies.generated';
import type { ContactRecord, MessageRecord } from './records';

/**
 * Records never change (a write stores a new record), so each is rendered once and the same
 * frozen view is handed out on every read; core/json.ts serializes a frozen object once too.
 * The caches are weak and shared by every world: the seeded records that all tokens' worlds
 * share are rendered once for all of them, and a record no world holds any more is forgotten.
 * A message's view also holds its sender's view, so it is made again when the contact changes.
 */
const contactViews = new WeakMap<ContactRecord, Readonly<Contact>>();
const senderViews = new WeakMap<ContactRecord, Readonly<MessageContact>>();
const messageViews = new WeakMap<MessageRecord, Readonly<Message>>();

/** The view of `record` kept in `views`, made and frozen on first use. */
function viewOf<R extends object, V>(
  views: WeakMap<R, Readonly<V>>,
  record: R,
  make: (r: R) => V,
): Readonly<V> {
  let view = views.get(record);
  if (view === undefined) {
    view = Object.freeze(make(record));
    views.set(record, view);
  }
  return view;
}

export function renderContact(record: ContactRecord): Readonly<Contact> {
  return viewOf(contactViews, record, contactView);
}

export function renderSender(record: ContactRecord): Readonly<MessageContact> {
  return viewOf(senderViews, record, senderView);
}

/**
 * The view of a message with `sender`, the view of its contact as it is now: the cached one while
 * the sender's view is the same object, else a new one, made, frozen and cached.
 */
export function messageView(record: MessageRecord, sender: Readonly<MessageContact>): Readonly<Message> {
  const cached = messageViews.get(record);
  if (cached !== undefined && cached.contact === sender) return cached;
  const view = Object.freeze(messageCopy(record, sender));
  messageViews.set(record, view);
  return view;
}

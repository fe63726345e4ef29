import { config } from '../http/config';
import {
  is2xx,
  is4xx,
  onExchange,
  requestsSinceLastCount,
  send,
  type Exchange,
  type Pairs,
} from '../http/http';
import { fingerprint, stopRequested, writeRecord } from '../http/records';
import { mapAtOnce } from '../http/at-once';
import { SetupFailure } from './harness';
import { reconciler } from './reconcile';
import { attachmentPairs, avatarSample, cannotMake, phoneFor, usernameFor } from './samples';
import { recordPath } from '../rules/resources';

/**
 * The kit's own data. Every contact's username and every message's text starts with the run id,
 * everything created is written to the run's ledger at once (so that the bin can sweep it even
 * after an interruption), and each test file deletes what it made in afterAll.
 */
export type Json = Record<string, unknown>;
export interface Contact extends Json {
  id: string;
  username: string;
  conversation_id: string;
}
export interface Message extends Json {
  id: string;
  conversation_id: string;
}

interface Made {
  resource: 'contact' | 'message';
  id: string;
  /** A contact's conversation, or the conversation a message is in. */
  conversation?: string;
  /** A message sent into a conversation whose contact the kit had deleted: no delete takes it. */
  late?: true;
}
const created: Made[] = [];
/** The conversation of each contact this process made. */
const conversationOf = new Map<string, string>();
/** The conversations whose contact this process deleted (the server said so). */
const goneConversations = new Set<string>();
let counter = 0;

/** A username the kit owns, unique, in the style the server accepts (samples.ts). */
function uniqueName(label: string): string {
  counter += 1;
  return usernameFor(label, counter);
}

function remember(resource: 'contact' | 'message', exchange: Exchange, label: string): void {
  const body = exchange.body as Json | undefined;
  if (is2xx(exchange) && body && typeof body === 'object') remembered(resource, body, label);
}

/** Writes a record the server made for the kit to the ledger, and to this process's clean-up. */
function remembered(resource: 'contact' | 'message', body: Json, label: string): void {
  const id = body.id;
  if (typeof id !== 'string' && typeof id !== 'number') return;
  const conversation = body.conversation_id != null ? String(body.conversation_id) : undefined;
  created.push({
    resource,
    id: String(id),
    ...(conversation !== undefined ? { conversation } : {}),
    ...(resource === 'message' && conversation !== undefined && goneConversations.has(conversation)
      ? { late: true as const }
      : {}),
  });
  if (resource === 'contact' && conversation !== undefined) conversationOf.set(String(id), conversation);
  writeRecord({
    kind: 'created',
    resource,
    id: String(id),
    label,
    fingerprint: fingerprint(resource, body),
    ...(resource === 'contact' && body.conversation_id != null
      ? { conversation: String(body.conversation_id) }
      : {}),
  });
}

/** Every delete the server said it did, whichever test sent it: the last sweep reads them back. */
const DELETED = /^\/v1\/(contact|message)s\/([^/?]+)$/;
onExchange((exchange) => {
  const deleted = exchange.method === 'DELETE' && is2xx(exchange) ? DELETED.exec(exchange.path) : null;
  if (!deleted) return;
  const resource = deleted[1] as 'contact' | 'message';
  const id = decodeURIComponent(deleted[2]!);
  writeRecord({ kind: 'deleted', resource, id, by: 'delete' });
  const conversation = resource === 'contact' ? conversationOf.get(id) : undefined;
  if (conversation !== undefined) goneConversations.add(conversation);
});

function refuseAfterStop(): void {
  if (stopRequested()) throw new SetupFailure('the run was interrupted; the kit creates nothing more');
}

/** A rule that needs a contact or a message the server took none of is not run, with the reason. */
function requireSample(what: 'contact' | 'message'): void {
  const why = cannotMake(what);
  if (why) throw new SetupFailure(why);
}

/** The id a create's answer names, when it names one. */
export function createdId(created: Exchange): string | undefined {
  const id = (created.body as Json | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** POST /v1/contacts with exactly these form pairs; what the server answers, whatever it is. */
export async function postContact(
  form: Pairs,
  options: { token?: string; discovering?: boolean; asJson?: boolean } = {},
): Promise<Exchange> {
  refuseAfterStop();
  if (!options.discovering) requireSample('contact');
  const label = form.find(([k]) => k === 'username')?.[1] ?? '';
  const reconcile = reconciler('contact', form, options.token, (item) => remembered('contact', item, label));
  const exchange = await send(
    'POST',
    '/v1/contacts',
    options.asJson
      ? { json: Object.fromEntries(form), token: options.token, reconcile }
      : { form, token: options.token, reconcile },
  );
  remember('contact', exchange, label);
  return exchange;
}

export function contactForm(label: string, extra: Record<string, string | undefined> = {}): Pairs {
  const username = uniqueName(label);
  const avatar = avatarSample();
  const pairs: [string, string][] = [
    ['username', username],
    ['phone_number', phoneFor(counter)],
    ...(avatar === undefined ? [] : [['avatar_url', avatar] as [string, string]]),
  ];
  for (const [key, value] of Object.entries(extra)) {
    const at = pairs.findIndex(([k]) => k === key);
    if (at >= 0) pairs.splice(at, 1);
    if (value !== undefined) pairs.push([key, value]);
  }
  return pairs;
}

/**
 * A contact for a rule that needs one. Fails as "not run" when the server will not make it: the
 * rules about creating contacts say why.
 */
export async function makeContact(
  label: string,
  extra: Record<string, string | undefined> = {},
): Promise<Contact> {
  requireSample('contact');
  const exchange = await postContact(contactForm(label, extra));
  const body = exchange.body as Json | undefined;
  if (!is2xx(exchange) || !body || (typeof body.id !== 'string' && typeof body.id !== 'number')) {
    throw new SetupFailure(
      `could not create a contact to work with (POST /v1/contacts → ${exchange.status}); see contacts.create`,
    );
  }
  const contact = { ...body, id: String(body.id) } as Contact;
  if (typeof contact.conversation_id !== 'string' || contact.conversation_id === '') {
    // The create answer lacks it (rule contacts.create.conversation-id); the stored contact may have it.
    const again = await send('GET', recordPath('contact', contact.id));
    const stored = again.body as Json | undefined;
    if (!is2xx(again) || !stored || typeof stored.conversation_id !== 'string') {
      throw new SetupFailure(
        'the contact has no conversation_id to send messages to; see contacts.create.conversation-id',
      );
    }
    contact.conversation_id = stored.conversation_id;
  }
  return contact;
}

export async function makeContacts(label: string, count: number): Promise<Contact[]> {
  const contacts: Contact[] = [];
  for (let i = 0; i < count; i++) contacts.push(await makeContact(`${label}${i}`));
  return contacts;
}

export function messageText(label: string): string {
  counter += 1;
  return `${config.runId} ${label} #${counter}`;
}

export async function postMessage(
  form: Pairs,
  options: { token?: string; discovering?: boolean } = {},
): Promise<Exchange> {
  refuseAfterStop();
  if (!options.discovering) requireSample('message');
  const label = form.find(([k]) => k === 'message')?.[1] ?? '';
  const reconcile = reconciler('message', form, options.token, (item) => remembered('message', item, label));
  const exchange = await send('POST', '/v1/messages', { form, token: options.token, reconcile });
  remember('message', exchange, label);
  return exchange;
}

export async function makeMessage(
  conversationId: string,
  label: string,
  extra: Pairs = [],
): Promise<Message> {
  requireSample('message');
  const exchange = await postMessage([
    ['conversation_id', conversationId],
    ['message', messageText(label)],
    ...extra,
  ]);
  const body = exchange.body as Json | undefined;
  if (!is2xx(exchange) || !body || (typeof body.id !== 'string' && typeof body.id !== 'number')) {
    throw new SetupFailure(
      `could not send a message to work with (POST /v1/messages → ${exchange.status}); see messages.send`,
    );
  }
  return { ...body, id: String(body.id) } as Message;
}

export async function makeMessages(conversationId: string, label: string, count: number): Promise<Message[]> {
  const messages: Message[] = [];
  for (let i = 0; i < count; i++) messages.push(await makeMessage(conversationId, `${label}${i}`));
  return messages;
}

/** An attachment as the kit sends it: the document does not show its fields; samples.ts finds a shape. */
export { attachmentPairs };

/**
 * Deletes one resource. Gone when the delete succeeds, or when both the delete and a retrieve
 * are refused (the documented rule set cannot tell "not found" from other refusals by status).
 */
export async function deleteResource(
  resource: 'contact' | 'message',
  id: string,
  token?: string,
): Promise<boolean> {
  const path = recordPath(resource, id);
  const removed = await send('DELETE', path, { token, evenIfUnreachable: true });
  // A delete the server did is in the ledger already (see onExchange above); one already gone is added.
  if (is2xx(removed)) return true;
  const gone = is4xx(removed) && is4xx(await send('GET', path, { token, evenIfUnreachable: true }));
  if (gone) writeRecord({ kind: 'deleted', resource, id, by: 'gone' });
  return gone;
}

/** Deletes each record, a few at once; answers those not gone (refused, or no answer at all). */
async function deleteEach(items: Made[]): Promise<Made[]> {
  const left: Made[] = [];
  await mapAtOnce(items, async (item) => {
    if (!(await deleteResource(item.resource, item.id).catch(() => false))) left.push(item);
  });
  return left;
}

/** Deletes records this process created before its file ends; one not gone stays for the file's clean-up. */
export async function deleteNow(resource: 'contact' | 'message', ids: readonly string[]): Promise<void> {
  const now = new Set(ids);
  const mine = (c: Made) => c.resource === resource && now.has(c.id);
  const pending = created.filter(mine);
  created.splice(0, created.length, ...created.filter((c) => !mine(c)));
  created.push(...(await deleteEach(pending)));
}

/**
 * Deletes what this process created. A message in the conversation of a contact the kit deletes
 * (now, or earlier) goes with its contact: the document says a contact's delete deletes its
 * conversation's messages, so the kit does not spend a request on each. It is in the ledger as
 * gone by the cascade, and the last sweep reads it back after the run, and deletes it when it is
 * still there (probes/last-sweep.ts). Other messages are deleted first, then the contacts. What
 * is left, the bin sweeps from the ledger at the end of the run, and reports.
 */
export async function cleanup(): Promise<void> {
  const pending = created.splice(0);
  const contacts = pending.filter((c) => c.resource === 'contact');
  const dying = new Set(contacts.map((c) => c.conversation));
  const messages = pending.filter((c) => c.resource === 'message');
  const withContact = (m: Made) =>
    m.conversation !== undefined &&
    !m.late &&
    (dying.has(m.conversation) || goneConversations.has(m.conversation));
  await deleteEach(messages.filter((m) => !withContact(m)));
  await deleteEach(contacts);
  // A message whose contact's delete the server did not take stays in the ledger for the bin.
  for (const message of messages.filter(withContact))
    if (goneConversations.has(message.conversation!))
      writeRecord({ kind: 'deleted', resource: 'message', id: message.id, by: 'cascade' });
}

/** Cleans up after the file's tests, whatever happened in them. */
export function useCleanup(): void {
  afterAll(
    async () => {
      try {
        await cleanup();
      } finally {
        writeRecord({ kind: 'requests', count: requestsSinceLastCount() });
      }
    },
    Math.max(60_000, config.timeoutMs * 10),
  );
}

/** Memoizes a shared fixture: the first test that needs it makes it; a failure is shared too. */
export function shared<T>(make: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= make());
}

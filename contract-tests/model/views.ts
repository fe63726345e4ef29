import type { Json } from './data';
import { is2xx, is4xx, send, type Exchange } from '../http/http';
import { Model } from './model';
import { asPage, idOf, walk, type Walk } from './paging';
import { NotRun, RuleFailure } from './harness';
import { settled } from './settle';
import { config } from '../http/config';
import { mapAtOnce } from '../http/at-once';
import { compareContact, compareMessage, fail, show, type View } from './compare';
import { recordPath } from '../rules/resources';

/**
 * Reads every view the document gives of the records in focus and compares it with the model:
 * retrieve by id, the contacts list (and its `active` filter), the conversation's messages list
 * and the list of all messages. Lists are walked with the paging mechanism the kit found, and on
 * a server that holds other data they are matched by the kit's ids, never assumed empty or
 * ordered. The first difference throws a RuleFailure naming the rule that makes the model's value
 * certain and the check (the view) that showed otherwise.
 */
export interface Focus {
  /** Contacts (alive or deleted) whose views to read. */
  contacts?: Iterable<string>;
  /** Messages (alive or deleted) whose views to read. */
  messages?: Iterable<string>;
  /**
   * Walk the contacts list and the list of all messages to their end (needed to see that a
   * deleted record is gone); otherwise they are walked until the records in focus are found.
   */
  full?: boolean;
  /** Also read the contacts list with active=true and active=false. */
  active?: boolean;
  /**
   * Also walk both lists in the server's default pages, to their end: a deleted record must be
   * gone from every page of every walk, those past the first of small pages too. With 'contacts',
   * the contacts list alone in pages of three: nearly every contact is on a page past the first,
   * where the judge reads it (a rename shown on every page).
   */
  deep?: boolean | 'contacts';
}

const CASCADE = 'contacts.delete.cascades-conversation';

function pageWith(walked: Walk, id: string): Exchange | undefined {
  return (
    walked.pages.find((p) => p.data.some((item) => idOf(item) === id))?.exchange ??
    walked.pages.at(-1)?.exchange
  );
}

/** A record can be shown gone from a list only by a walk to its end. */
function walkedToTheEnd(walked: Walk, view: View): void {
  if (!walked.complete)
    throw new NotRun(
      `could not walk the ${view} to its end, to see what must be gone: ${walked.reason ?? 'no next page'}`,
    );
}

/** No record of the kit's is listed twice in one walk, and the paging repeats nothing (lists.pages). */
function noRepeats(state: Model, walked: Walk, view: View): void {
  if (walked.still === false)
    throw new NotRun(
      `the ${view} moved under every walk (the writes of the kit's other workers at the same time), so what its page boundaries show is not the server's paging`,
    );
  if (walked.flaw) fail('lists.pages', `${view}: next page`, walked.flaw, walked.pages[1]?.exchange);
  const mine = walked.repeated.find(
    (item) => state.contacts.has(idOf(item)) || state.messages.has(idOf(item)),
  );
  if (mine)
    fail(
      'lists.pages',
      `${view}: walked to its end`,
      `the ${view} shows ${idOf(mine)} on two pages`,
      pageWith(walked, idOf(mine)),
    );
}

/**
 * Records of the model's that a list walked to its end lacks. One that retrieve refuses too is
 * gone although the kit never deleted it: the last operation took it with its own record (its
 * rule fails). One that retrieve still shows is missing from the list (the list's rule fails).
 */
async function lacking(
  state: Model,
  kind: 'contact' | 'message',
  missing: string[],
  listRule: string,
  view: View,
  message: string,
  exchange: Exchange | undefined,
): Promise<void> {
  if (missing.length === 0) return;
  for (const id of missing) {
    const answer = await send('GET', recordPath(kind, id));
    if (is4xx(answer) && state.last)
      fail(
        state.last.rule,
        `${view}: collateral`,
        `after ${state.last.what}, the ${kind} ${id}, which the kit did not delete, is gone: not in the ${view}, and retrieve answers ${answer.status}`,
        answer,
      );
  }
  fail(listRule, view, message, exchange);
}

/**
 * Retrieve by id: a deleted record must be refused, a live one must answer as the model says.
 * Returns the body of a live record, undefined when there is nothing more to compare.
 */
/** Whether a list (the contacts, or the message's conversation) still shows a record, walked to its end. */
async function listed(kind: 'contact' | 'message', id: string, conversation: string): Promise<boolean> {
  const walked = await walk(
    kind === 'contact' ? '/v1/contacts' : '/v1/messages',
    kind === 'contact' ? {} : { conversation_id: conversation },
    { limit: 100, until: (items: Json[]) => items.some((i) => idOf(i) === id) },
  );
  return !walked.complete || walked.items.some((i) => idOf(i) === id);
}

async function retrieve(
  state: Model,
  kind: 'contact' | 'message',
  id: string,
  gone: { because: string } | undefined,
  known: boolean,
  conversation: string,
): Promise<{ body: Json; answer: Exchange } | undefined> {
  if (gone) {
    // A record deleted by a cascade (not named by the delete) may take up to --settle-ms to go.
    const goneNow = async () => {
      const answer = await send('GET', recordPath(kind, id));
      if (!is4xx(answer))
        fail(
          gone.because,
          'retrieve',
          `the deleted ${kind} ${id} is still retrieved (${answer.status})`,
          answer,
        );
    };
    await (gone.because === CASCADE ? settled(goneNow) : goneNow());
    return undefined;
  }
  const answer = await send('GET', recordPath(kind, id));
  if (!known) return undefined;
  const body = answer.body as Json | undefined;
  if (is4xx(answer) && state.last && !(await listed(kind, id, conversation)))
    fail(
      state.last.rule,
      'retrieve: collateral',
      `after ${state.last.what}, the ${kind} ${id}, which the kit did not delete, is gone: retrieve answers ${answer.status}, and its list no longer shows it`,
      answer,
    );
  if (!is2xx(answer) || !body || typeof body !== 'object' || Array.isArray(body))
    fail(
      `${kind}s.retrieve`,
      'retrieve',
      `the ${kind} ${id} could not be retrieved (${answer.status})`,
      answer,
    );
  return { body, answer };
}

async function retrieveContact(state: Model, id: string): Promise<void> {
  const model = state.contacts.get(id);
  const found = await retrieve(
    state,
    'contact',
    id,
    state.goneContacts.get(id),
    model !== undefined,
    model?.conversationId ?? '',
  );
  if (found && model) compareContact(model, found.body, 'retrieve', found.answer);
}

async function retrieveMessage(state: Model, id: string): Promise<void> {
  const model = state.messages.get(id);
  const found = await retrieve(
    state,
    'message',
    id,
    state.goneMessages.get(id),
    model !== undefined,
    model?.conversationId ?? '',
  );
  if (found && model) compareMessage(state, model, found.body, 'retrieve', found.answer);
}

async function contactsList(
  state: Model,
  focus: Set<string>,
  full: boolean,
  active?: 'true' | 'false',
): Promise<void> {
  const view: View = active ? `contacts list with active=${active}` : 'contacts list';
  // Every live contact of the kit's, not only those in focus: an operation may take another.
  const alive = [...new Set([...focus, ...state.contacts.keys()])].filter((id) => state.contacts.has(id));
  const walked = await walk('/v1/contacts', active ? { active } : {}, {
    limit: 100,
    ...(full || active
      ? {}
      : { until: (items: Json[]) => alive.every((id) => items.some((i) => idOf(i) === id)) }),
  });
  if (walked.pages.length === 0) return; // lists.page-fields and contacts.list.active-parameter judge that
  noRepeats(state, walked, view);
  if (full || active) walkedToTheEnd(walked, view);
  const listed = new Set<string>();
  for (const item of walked.items) {
    const id = idOf(item);
    listed.add(id);
    const gone = state.goneContacts.get(id);
    if (gone)
      fail(gone.because, view, `the deleted contact ${id} is still in the ${view}`, pageWith(walked, id));
    const model = state.contacts.get(id);
    if (model) compareContact(model, item, view, pageWith(walked, id)!);
  }
  if (!active && walked.complete) {
    const missing = alive.filter((id) => !listed.has(id));
    await lacking(
      state,
      'contact',
      missing,
      'contacts.list',
      view,
      `the ${view}, walked to its end, lacks the contact(s) ${missing.join(', ')}`,
      walked.pages.at(-1)?.exchange,
    );
  }
}

async function conversationList(state: Model, conversationId: string): Promise<void> {
  const view: View = 'conversation list';
  const gone = state.goneConversation(conversationId);
  if (gone) {
    const answer = await send('GET', '/v1/messages', { query: { conversation_id: conversationId } });
    const page = asPage(answer);
    // The deleted conversation may be refused, or answered with an empty page.
    if (is4xx(answer) || (page && page.data.length === 0 && !page.has_more)) return;
    const stray = page?.data.find((item) => item.conversation_id !== conversationId);
    if (stray)
      fail(
        'messages.list.conversation-filter',
        view,
        `the list of conversation ${conversationId} shows the message ${idOf(stray)} of ${show(stray.conversation_id)}`,
        answer,
      );
    fail(
      gone.because,
      view,
      `the list of the deleted conversation ${conversationId} still answers ${page ? `${page.data.length} message(s)` : `a ${answer.status}`}`,
      answer,
    );
  }
  const walked = await walk('/v1/messages', { conversation_id: conversationId }, { limit: 100 });
  if (walked.pages.length === 0) return; // lists.page-fields judges that
  noRepeats(state, walked, view);
  const listed = new Set<string>();
  for (const item of walked.items) {
    const id = idOf(item);
    listed.add(id);
    const goneMessage = state.goneMessages.get(id);
    if (goneMessage)
      fail(
        goneMessage.because,
        view,
        `the deleted message ${id} is still in the ${view}`,
        pageWith(walked, id),
      );
    if (item.conversation_id !== conversationId)
      fail(
        'messages.list.conversation-filter',
        view,
        `the list of conversation ${conversationId} shows the message ${id} of ${show(item.conversation_id)}`,
        pageWith(walked, id),
      );
    const model = state.messages.get(id);
    if (model) compareMessage(state, model, item, view, pageWith(walked, id)!);
  }
  if (walked.complete) {
    const missing = state.messagesIn(conversationId).filter((m) => !listed.has(m.id));
    await lacking(
      state,
      'message',
      missing.map((m) => m.id),
      'messages.list.conversation-filter',
      view,
      `the list of conversation ${conversationId}, walked to its end, lacks ${missing.map((m) => m.id).join(', ')}`,
      walked.pages.at(-1)?.exchange,
    );
  }
}

async function allMessagesList(state: Model, focus: Set<string>, full: boolean): Promise<void> {
  const view: View = 'all messages list';
  const alive = [...new Set([...focus, ...state.messages.keys()])].filter((id) => state.messages.has(id));
  const walked = await walk(
    '/v1/messages',
    {},
    {
      limit: 100,
      ...(full ? {} : { until: (items: Json[]) => alive.every((id) => items.some((i) => idOf(i) === id)) }),
    },
  );
  if (walked.pages.length === 0) return;
  noRepeats(state, walked, view);
  if (full) walkedToTheEnd(walked, view);
  const listed = new Set<string>();
  for (const item of walked.items) {
    const id = idOf(item);
    listed.add(id);
    const gone = state.goneMessages.get(id);
    if (gone)
      fail(gone.because, view, `the deleted message ${id} is still in the ${view}`, pageWith(walked, id));
    const conversation = state.goneConversation(String(item.conversation_id));
    if (conversation)
      fail(
        conversation.because,
        view,
        `the ${view} still shows the message ${id} of the deleted conversation ${String(item.conversation_id)}`,
        pageWith(walked, id),
      );
    const model = state.messages.get(id);
    if (model) compareMessage(state, model, item, view, pageWith(walked, id)!);
  }
  if (walked.complete) {
    const missing = alive.filter((id) => !listed.has(id));
    await lacking(
      state,
      'message',
      missing,
      'messages.list.all-conversations',
      view,
      `the ${view}, walked to its end, lacks ${missing.join(', ')}`,
      walked.pages.at(-1)?.exchange,
    );
  }
}

/**
 * A list walked to its end in small pages: the server's default ones (no limit), or pages of
 * `limit`. No deleted record of the kit's is on any page, nor a message of a deleted
 * conversation. (Its other values are read in the larger pages of the views above.)
 */
async function goneFromSmallPages(state: Model, kind: 'contact' | 'message', limit?: number): Promise<void> {
  const view: View = kind === 'contact' ? 'contacts list' : 'all messages list';
  // After the window a list may take to show a delete (--settle-ms): a delete landing in the list
  // while it is walked would move its pages (with page numbers or offsets), which is no fault.
  if (config.settleMs > 0) await new Promise((resolve) => setTimeout(resolve, config.settleMs));
  const walked = await walk(`/v1/${kind}s`, {}, { maxPages: 200, ...(limit ? { limit } : {}) });
  for (const [i, page] of walked.pages.entries()) {
    for (const item of page.data) {
      const id = idOf(item);
      const where = `the ${view} (page ${i + 1} of its ${limit ? `pages of ${limit}` : 'default pages'})`;
      const gone = kind === 'contact' ? state.goneContacts.get(id) : state.goneMessages.get(id);
      if (gone) fail(gone.because, view, `the deleted ${kind} ${id} is still in ${where}`, page.exchange);
      const conversation =
        kind === 'message' ? state.goneConversation(String(item.conversation_id)) : undefined;
      if (conversation)
        fail(
          conversation.because,
          view,
          `${where} still shows the message ${id} of the deleted conversation ${String(item.conversation_id)}`,
          page.exchange,
        );
    }
  }
}

/** Reads every view of the records in focus and compares it with the model. */
export async function verify(state: Model, focus: Focus): Promise<void> {
  const contacts = new Set(focus.contacts ?? []);
  const messages = new Set(focus.messages ?? []);
  const conversations = new Set<string>();
  for (const id of contacts) {
    const conversation = state.contacts.get(id)?.conversationId ?? state.goneContacts.get(id)?.conversationId;
    if (conversation) conversations.add(conversation);
  }
  for (const id of messages) {
    const conversation = state.messages.get(id)?.conversationId ?? state.goneMessages.get(id)?.conversationId;
    if (conversation) conversations.add(conversation);
  }
  // Every conversation of the kit's is read, not only those in focus.
  for (const contact of state.contacts.values()) conversations.add(contact.conversationId);
  // After a delete, the lists are walked to their end: what it took must be gone, and nothing else.
  const full = focus.full === true || /delete/.test(state.last?.rule ?? '');
  // A value that only retrieve shows wrong, while every list shows it as the model says, is
  // retrieve's fault: the lists are read first, and only then is it failed, under the retrieve rule.
  // Reads change nothing and none waits on another's answer: a few are in flight at once, and the
  // failure told is the one the first read in this order would have found.
  const retrieves: (() => Promise<void>)[] = [
    ...[...contacts].map((id) => () => retrieveContact(state, id)),
    ...[...messages].map((id) => () => retrieveMessage(state, id)),
  ];
  const kinds = [...[...contacts].map(() => 'contact'), ...[...messages].map(() => 'message')];
  // With several records in focus, the first such difference stands for them all.
  const differences = await mapAtOnce(retrieves, async (read, i) => {
    try {
      await read();
      return undefined;
    } catch (error) {
      if (!(error instanceof RuleFailure) || !isModelDisagreement(error)) throw error;
      return new RuleFailure(error.message.split('\n')[0]!, error.exchange, {
        rule: `${kinds[i]}s.retrieve`,
        check: error.of.check,
      });
    }
  });
  await mapAtOnce(lists(), (read) => settled(read));
  const onlyRetrieve = differences.find((d) => d !== undefined);
  if (onlyRetrieve) throw onlyRetrieve;

  function lists(): (() => Promise<void>)[] {
    const reads: (() => Promise<void>)[] = [];
    if (contacts.size > 0 || full || state.contacts.size > 0)
      reads.push(() => contactsList(state, contacts, full));
    if (focus.active) {
      reads.push(() => contactsList(state, contacts, true, 'true'));
      reads.push(() => contactsList(state, contacts, true, 'false'));
    }
    for (const conversation of conversations) reads.push(() => conversationList(state, conversation));
    if (messages.size > 0 || full || conversations.size > 0 || state.messages.size > 0)
      reads.push(() => allMessagesList(state, messages, full));
    if (focus.deep)
      for (const kind of focus.deep === 'contacts'
        ? (['contact'] as const)
        : (['contact', 'message'] as const))
        reads.push(() => goneFromSmallPages(state, kind, focus.deep === 'contacts' ? 3 : undefined));
    return reads;
  }
}

/** The rules of a record's shape, which name their fault whatever the view that shows it. */
const SHAPE_RULES = new Set([
  'contacts.fields',
  'messages.fields',
  'api.integer-timestamps',
  'messages.contact-fields',
  'messages.contact-is-sender',
]);

/** A live record's value in retrieve that differs from the model's. */
function isModelDisagreement(error: RuleFailure): boolean {
  const check = error.of.check ?? '';
  return (
    check.startsWith('retrieve: ') &&
    check !== 'retrieve: collateral' &&
    !SHAPE_RULES.has(error.of.rule ?? '')
  );
}

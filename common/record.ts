import { describeExchange, get, NoAnswer, withQuery, type Exchange } from './http';
import {
  asPage,
  mechanismOf,
  walkPages,
  type Json,
  type PageSource,
  type PageStep,
  type WalkEnd,
} from './paging';

/**
 * Records a Messaging API account as its server lists it: every contact, every message of each
 * contact's conversation, and the order of the list of all messages, walked with the paging
 * mechanism found on the server (paging.ts, which the contract kit walks with too). Only GET
 * requests, sent with Node's own http client: it changes nothing there, and needs no test runner.
 *
 * What it hands over, a page at a time, is the server's own records, unconverted. Keeping them
 * and turning them into the mock's fixture format is the mock's business (`messaging-fixtures
 * --from`, src/recording/), which loads this module at run time: src/ and common/ are compiled
 * apart and meet at these shapes.
 */

export interface RecordOptions {
  /** The server's root; the paths start with /v1 (a trailing /v1 is taken off). */
  baseUrl: string;
  token: string;
  /** How long to wait for one answer. */
  timeoutMs?: number;
  /** The page size asked for (`limit`), 100 when not given; the largest the server takes, down to its default. */
  pageSize?: number;
  onProgress?(progress: RecordProgress): void;
}

export interface RecordProgress {
  /** Listing the contacts, walking their conversations, or listing every message for their order. */
  phase: 'contacts' | 'conversations' | 'order';
  contacts: number;
  conversationsWalked: number;
  /** Messages received so far (in the order phase: of the list of all messages). */
  messages: number;
  requests: number;
}

/**
 * Where `walkAccount` hands the records, a page at a time, as they come; nothing is kept here.
 * The calls come in this order: every page of contacts; then, for each contact that has a
 * conversation_id, `conversation` and the pages of its messages; then the pages of the list of
 * every message, as ids.
 */
export interface AccountSink {
  /** Contacts, as GET /v1/contacts lists them, in its order (a repeated one only once). */
  contacts(items: unknown[]): void | Promise<void>;
  /** The conversation whose messages the next `messages` calls hold, as its contact gives it. */
  conversation(conversationId: string): void | Promise<void>;
  /** Messages, as GET /v1/messages?conversation_id=… lists them, in its order. */
  messages(items: unknown[]): void | Promise<void>;
  /** Ids of GET /v1/messages (every conversation), in its order; void when `ordered` is false at the end. */
  order(ids: string[]): void | Promise<void>;
}

/** What a walk of an account says besides its records. */
export interface AccountWalk {
  /** The server's root, as the requests went to it. */
  baseUrl: string;
  /** Whether the list of every message was walked whole, so that the `order` pages count. */
  ordered: boolean;
  /** The next-page mechanism found, when a list had more than one page. */
  paging?: string;
  /** Things the recording met that the records do not show (items listed twice, a list it could not walk). */
  notes: string[];
  requests: number;
}

/** A recording that failed. `option` names the option at fault when the cause is the input. */
export class RecordError extends Error {
  override name = 'RecordError';
  constructor(
    message: string,
    readonly option?: '--from' | '--token',
  ) {
    super(message);
  }
}

const LIMIT = 100;
const TIMEOUT_MS = 10_000;

/**
 * Walks the account and hands every page to `sink` as it comes: what the recording keeps is the
 * sink's business, so that an account of any size costs one page here (and, per list, the ids met
 * so far, to tell an item listed twice).
 */
export async function walkAccount(options: RecordOptions, sink: AccountSink): Promise<AccountWalk> {
  const baseUrl = serverRoot(options.baseUrl);
  const target = { baseUrl, token: options.token, timeoutMs: options.timeoutMs ?? TIMEOUT_MS };
  const progress: RecordProgress = {
    phase: 'contacts',
    contacts: 0,
    conversationsWalked: 0,
    messages: 0,
    requests: 0,
  };
  let last: Exchange | undefined;
  const send = async (path: string): Promise<Exchange> => {
    const exchange = await get(path, target);
    last = exchange;
    progress.requests += 1;
    const page = asPage(exchange);
    if (page && progress.phase !== 'contacts' && exchange.path.startsWith('/v1/messages'))
      progress.messages += page.data.length;
    options.onProgress?.({ ...progress });
    return exchange;
  };
  const source: PageSource = { baseUrl, get: (path, query) => send(withQuery(path, query)) };
  const lastAnswer = () => (last ? ` (last answer: ${describeExchange(last, 200)})` : '');
  /** A whole list, or the end of the recording when the server stops answering. */
  const walkAll = async (
    path: string,
    query: Record<string, string>,
    onPage: (step: PageStep) => void | Promise<void>,
  ): Promise<WalkEnd> => {
    try {
      return await walkPages(
        source,
        path,
        query,
        { limit: options.pageSize ?? LIMIT, maxPages: Infinity },
        async (step) => {
          await onPage(step);
        },
      );
    } catch (error) {
      if (error instanceof NoAnswer) throw new RecordError(`the server stopped answering: ${error.message}`);
      throw error;
    }
  };
  const listAll = async (
    path: string,
    query: Record<string, string>,
    what: string,
    onPage: (step: PageStep) => void | Promise<void>,
  ): Promise<WalkEnd> => {
    const result = await walkAll(path, query, onPage);
    if (!result.complete && result.reason)
      throw new RecordError(`cannot list ${what}: ${result.reason}${lastAnswer()}`);
    return result;
  };
  const notes: string[] = [];
  const noteWalk = (result: WalkEnd, what: string) => {
    if (result.repeated > 0)
      notes.push(`${what}: ${result.repeated} item(s) that a later page listed again, kept once`);
    if (!result.complete)
      notes.push(`${what}: has_more was true but the next page was empty; recorded what it listed`);
  };

  await probe(baseUrl, send);
  // Of each contact, only what its conversation's walk needs.
  const conversations: (string | undefined)[] = [];
  const contacts = await listAll('/v1/contacts', {}, 'the contacts (GET /v1/contacts)', async ({ items }) => {
    for (const contact of items) {
      const id = contact.conversation_id;
      conversations.push(typeof id === 'string' || typeof id === 'number' ? String(id) : undefined);
    }
    await sink.contacts(items);
  });
  noteWalk(contacts, 'GET /v1/contacts');
  progress.contacts = contacts.items;
  progress.phase = 'conversations';
  options.onProgress?.({ ...progress });

  let listed = 0;
  for (const id of conversations) {
    if (id !== undefined) {
      const what = `GET /v1/messages?conversation_id=${id}`;
      await sink.conversation(id);
      const walked = await listAll(
        '/v1/messages',
        { conversation_id: id },
        `the messages of conversation ${id} (${what})`,
        ({ items }) => sink.messages(items),
      );
      noteWalk(walked, what);
      listed += walked.items;
    }
    progress.conversationsWalked += 1;
    // The running count also saw pages that paging discovery fetched and did not keep.
    progress.messages = listed;
    options.onProgress?.({ ...progress });
  }

  progress.phase = 'order';
  progress.messages = 0;
  const ordered = await listOrder(notes);
  return {
    baseUrl,
    ordered,
    paging: mechanismOf(baseUrl, '/v1/contacts') ?? mechanismOf(baseUrl, '/v1/messages'),
    notes,
    requests: progress.requests,
  };

  /**
   * Only the list of every message shows in which order the server made messages of different
   * conversations within one second. A server that does not list it, or not in pages, leaves
   * the order to the timestamps.
   */
  async function listOrder(into: string[]): Promise<boolean> {
    const result = await walkAll('/v1/messages', {}, ({ items }) =>
      sink.order(items.map((item: Json) => String(item.id))),
    );
    if (!result.complete && result.reason) {
      if (last && last.status >= 500)
        throw new RecordError(
          `cannot list every message (GET /v1/messages): ${result.reason}${lastAnswer()}`,
        );
      into.push(
        `GET /v1/messages (every conversation) could not be walked (${result.reason}): messages of one second are in the order of their conversations`,
      );
      return false;
    }
    noteWalk(result, 'GET /v1/messages');
    return true;
  }
}

/** The base URL as the kit sends requests to it, or why it is none. */
function serverRoot(text: string): string {
  let root = text.trim().replace(/\/+$/, '');
  // The paths start with /v1, so the base URL is the server's root (the mock prints it with /v1).
  if (root.endsWith('/v1')) root = root.slice(0, -3);
  let url: URL;
  try {
    url = new URL(root);
  } catch {
    throw new RecordError(
      `--from ${JSON.stringify(text)} is not a URL; give the server's root, e.g. http://127.0.0.1:4010`,
      '--from',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RecordError(`--from ${JSON.stringify(text)} is not an http(s) URL`, '--from');
  if (url.search || url.hash)
    throw new RecordError(
      `--from ${JSON.stringify(text)} has a query or a fragment; give the server's root`,
      '--from',
    );
  return root;
}

/** One first request, so that a wrong URL or token is said as such, before any walking. */
async function probe(baseUrl: string, send: (path: string) => Promise<Exchange>): Promise<void> {
  let answer: Exchange;
  try {
    answer = await send('/v1/contacts');
  } catch (error) {
    if (error instanceof NoAnswer)
      throw new RecordError(`--from ${baseUrl}: the server does not answer (${error.message})`, '--from');
    throw error;
  }
  if (answer.status === 401 || answer.status === 403) {
    throw new RecordError(
      `--token: the server refuses it (GET ${baseUrl}/v1/contacts → ${answer.status}${answer.text ? ` ${answer.text.slice(0, 200)}` : ''})`,
      '--token',
    );
  }
  if (answer.status >= 500) throw new RecordError(`the server failed: ${describeExchange(answer, 200)}`);
  if (!asPage(answer)) {
    throw new RecordError(
      `--from ${baseUrl}: GET /v1/contacts does not answer a page of results ({"has_more", "data"}): ${describeExchange(answer, 200)} (is it the server's root, the part before /v1?)`,
      '--from',
    );
  }
}

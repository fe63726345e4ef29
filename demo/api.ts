import type { Conventions } from '../src/twin/profile';
import type { Contact, Message, Page } from '../src/types';

export type { Contact, Message } from '../src/types';

/** A refused or failed request, with what the error body said (where the server puts it). */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    /** The error's machine code, or '' when the server's error body has none. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A page of messages, newest first, and how to ask for the older ones (`next`, opaque). */
export interface MessagePage extends Page<Message> {
  next?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** At most this many pages of one list are read, whatever a server says of the next. */
const MAX_PAGES = 50;
/** Messages shown at first, and loaded each time older ones are asked for. */
const MESSAGES_PAGE = 30;
const TIMESTAMPS = ['created_at', 'last_active_at', 'updated_at', 'read_at'];

/**
 * The demo's client of the Messaging API: plain fetch calls with a bearer token. Where the API's
 * document leaves a choice open (the next-page mechanism, `limit`'s largest value, the order of
 * the lists, the error body, the timestamp unit, the layout of reactions and attachments), it asks
 * the mock what is in force (`GET /__mock/conventions`): the mock's own conventions, or those of
 * the server a twin was built from. A server with no such route is taken to follow the mock's.
 */
export class Api {
  #failNext = false;
  #conventions: Promise<Conventions | null> | undefined;
  /** Where the mock's control routes answered (`/__mock/…`): the base given, or its origin. */
  #control: string;
  /** The messages of a conversation read whole (a list not newest first), newest first. */
  readonly #cached = new Map<string, Message[]>();

  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {
    this.#control = base;
  }

  /** Makes the next API request carry `Prefer: code=503`, so that the mock answers it with an error. */
  failNextRequest(on: boolean): void {
    this.#failNext = on;
  }

  get failsNextRequest(): boolean {
    return this.#failNext;
  }

  /**
   * The conventions in force where the document is silent, as the mock says (`in_force`: null for
   * its own), read once; null when the server has no such route.
   */
  conventions(): Promise<Conventions | null> {
    this.#conventions ??= (async () => {
      const origin = new URL(this.base, location.href).origin;
      for (const place of new Set([this.base, origin])) {
        try {
          const response = await fetch(`${place}/__mock/conventions`, {
            headers: { Authorization: `Bearer ${this.token}` },
          });
          if (!response.ok) continue;
          const shown = (await response.json()) as { in_force?: Conventions | null };
          this.#control = place;
          return shown.in_force ?? null;
        } catch {
          // No such route here: the next place, or the mock's own conventions.
        }
      }
      return null;
    })();
    return this.#conventions;
  }

  /** Every contact, page after page, as the server pages them. */
  async listContacts(): Promise<Contact[]> {
    const c = await this.conventions();
    const contacts: Contact[] = [];
    let url: string | undefined = `${await this.#api()}/v1/contacts?limit=${largestPage(c)}`;
    for (let pages = 0; url !== undefined && pages < MAX_PAGES; pages++) {
      const read: { page: Page<Contact>; next?: string } = await this.#page<Contact>(url, c);
      contacts.push(...read.page.data);
      url = read.next;
    }
    return contacts;
  }

  /**
   * The newest messages of a conversation, or, with `next` from an earlier page, the older ones. A
   * server whose list is not newest first is read whole and ordered here.
   */
  async listMessages(conversationId: string, next?: string): Promise<MessagePage> {
    const c = await this.conventions();
    const first = `${await this.#api()}/v1/messages?${new URLSearchParams({ conversation_id: conversationId })}`;
    const order = c?.order.messages;
    if (order === undefined || (order.field === 'created_at' && order.direction === 'desc')) {
      const { page, next: older } = await this.#page<Message>(
        next ?? `${first}&limit=${Math.min(MESSAGES_PAGE, largestPage(c))}`,
        c,
      );
      return { ...page, ...(older === undefined ? {} : { next: older }) };
    }
    let all = next === undefined ? undefined : this.#cached.get(conversationId);
    if (all === undefined) {
      all = [];
      let url: string | undefined = `${first}&limit=${largestPage(c)}`;
      for (let pages = 0; url !== undefined && pages < MAX_PAGES; pages++) {
        const read: { page: Page<Message>; next?: string } = await this.#page<Message>(url, c);
        all.push(...read.page.data);
        url = read.next;
      }
      all.sort((a, b) => b.created_at - a.created_at);
      this.#cached.set(conversationId, all);
    }
    const from = next === undefined ? 0 : Number(next);
    const data = all.slice(from, from + MESSAGES_PAGE);
    const more = from + MESSAGES_PAGE < all.length;
    return { has_more: more, data, ...(more ? { next: String(from + MESSAGES_PAGE) } : {}) };
  }

  async sendMessage(conversationId: string, text: string): Promise<Message> {
    const c = await this.conventions();
    const { body } = await this.#call('POST', `${await this.#api()}/v1/messages`, {
      conversation_id: conversationId,
      message: text,
    });
    return message(c, body as Json);
  }

  /** Adds `username` to the message's reaction `name` (reactions are only ever added). */
  async react(messageId: string, name: string, username: string): Promise<Message> {
    const c = await this.conventions();
    const { body } = await this.#call(
      'PUT',
      `${await this.#api()}/v1/messages/${encodeURIComponent(messageId)}`,
      {
        reactions: { [name]: [username] },
      },
    );
    return message(c, body as Json);
  }

  /** Puts this token's world back to the seeded one (a control route of the mock). */
  async reset(): Promise<void> {
    this.#failNext = false;
    this.#cached.clear();
    await this.conventions();
    await this.#call('POST', `${this.#control}/__mock/reset`);
  }

  /** The base of the API: the given one, under the twin's path prefix when it has one. */
  async #api(): Promise<string> {
    const prefix = (await this.conventions())?.pathPrefix ?? '';
    return prefix && !this.base.endsWith(prefix) ? this.base + prefix : this.base;
  }

  /** One page of a list, its records in the document's spelling, and the URL of the next page. */
  async #page<T>(url: string, c: Conventions | null): Promise<{ page: Page<T>; next?: string }> {
    const { body, headers } = await this.#call('GET', url);
    const answer = body as Json;
    const data = (Array.isArray(answer.data) ? answer.data : []) as Json[];
    const page = {
      has_more: answer.has_more === true,
      data: data.map((item) =>
        'conversation_id' in item && 'message' in item ? message(c, item) : record(c, item),
      ),
    } as unknown as Page<T>;
    if (!page.has_more || data.length === 0) return { page };
    const next = nextPage(c, url, answer, headers, data);
    return next === undefined ? { page } : { page, next };
  }

  async #call(method: string, url: string, body?: unknown): Promise<{ body: unknown; headers: Headers }> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.#failNext && !url.includes('/__mock/')) {
      headers.Prefer = 'code=503';
      this.#failNext = false;
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new RequestError(0, 'network_error', error instanceof Error ? error.message : String(error));
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const shape = (await this.conventions())?.errorBody;
      const said = (path: string) => {
        const value = at(parsed, path);
        return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
      };
      throw new RequestError(
        response.status,
        (shape ? shape.codeAt && said(shape.codeAt) : said('code')) ?? '',
        said(shape?.messageAt ?? 'message') ?? (text || response.statusText),
      );
    }
    return { body: parsed, headers: response.headers };
  }
}

/** The largest page the server gives: `limit`'s most. */
function largestPage(c: Conventions | null): number {
  return c?.limit?.max ?? 100;
}

/** The value at `a.b.0.c` of a parsed body. */
function at(value: unknown, path: string): unknown {
  let here = value;
  for (const key of path.split('.'))
    here = isObject(here) || Array.isArray(here) ? (here as Json)[key] : undefined;
  return here;
}

/** The URL of the next page, by the server's mechanism (the mock's: `starting_after=<last id>`). */
function nextPage(
  c: Conventions | null,
  url: string,
  body: Json,
  headers: Headers,
  data: Json[],
): string | undefined {
  const paging = c?.paging ?? { kind: 'after-id' as const, param: 'starting_after' };
  const withParam = (name: string, value: string) => {
    const next = new URL(url, location.href);
    next.searchParams.set(name, value);
    return next.href;
  };
  const param = paging.param ?? 'cursor';
  const current = new URL(url, location.href).searchParams.get(param);
  switch (paging.kind) {
    case 'after-id':
      return withParam(param, String(data.at(-1)!.id));
    case 'page':
      return withParam(param, String(Number(current ?? '1') + 1));
    case 'offset':
      return withParam(param, String(Number(current ?? '0') + data.length));
    case 'body-token': {
      const token = at(body, paging.bodyKey!);
      return typeof token === 'string' && token !== '' ? withParam(param, token) : undefined;
    }
    case 'body-url': {
      const next = at(body, paging.bodyKey!);
      return typeof next === 'string' && next !== '' ? new URL(next, url).href : undefined;
    }
    case 'link-header': {
      const link = /<([^>]+)>\s*;\s*rel="?next"?/.exec(headers.get('Link') ?? '');
      return link ? new URL(link[1]!, url).href : undefined;
    }
  }
}

/** A record with its timestamps in Unix seconds, as the demo shows them. */
function record(c: Conventions | null, item: Json): Json {
  const factor =
    c?.timestampUnit === 'milliseconds' ? 1000 : c?.timestampUnit === 'microseconds' ? 1_000_000 : 1;
  if (factor !== 1)
    for (const key of TIMESTAMPS)
      if (typeof item[key] === 'number') item[key] = Math.floor((item[key] as number) / factor);
  return item;
}

/** A message in the document's spelling: reactions one name each, attachments' usual fields. */
function message(c: Conventions | null, item: Json): Message {
  record(c, item);
  if (isObject(item.contact)) record(c, item.contact);
  if (Array.isArray(item.reactions))
    item.reactions = (item.reactions as Json[]).flatMap((reaction) =>
      Object.entries(reaction).map(([name, users]) => ({ [name]: users })),
    );
  if (Array.isArray(item.attachments))
    item.attachments = (item.attachments as Json[]).map((attachment) => {
      const value = (test: RegExp) => Object.entries(attachment).find(([key]) => test.test(key))?.[1];
      return {
        ...attachment,
        filename: attachment.filename ?? value(/name/i) ?? 'file',
        file_url: attachment.file_url ?? value(/url/i),
        file_size: attachment.file_size ?? value(/size|bytes/i) ?? null,
      };
    });
  return item as unknown as Message;
}

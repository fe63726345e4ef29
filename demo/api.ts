import type { ApiErrorBody, Contact, Message, Page } from '../src/types';

export type { Contact, Message, Page } from '../src/types';

/** A refused or failed request, with what the error body said (convention C2). */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The demo's client of the Messaging API: plain fetch calls to `<base>/v1/…` with a bearer token.
 * Nothing here knows about the mock; Mock Service Worker answers these requests inside the page.
 */
export class Api {
  #failNext = false;

  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  /** Makes the next API request carry `Prefer: code=503`, so that the mock answers it with an error. */
  failNextRequest(on: boolean): void {
    this.#failNext = on;
  }

  get failsNextRequest(): boolean {
    return this.#failNext;
  }

  listContacts(): Promise<Page<Contact>> {
    return this.#call('GET', '/v1/contacts?limit=100');
  }

  /** The newest messages of a conversation, or those older than `olderThan` (an id). */
  listMessages(conversationId: string, olderThan?: string): Promise<Page<Message>> {
    const query = new URLSearchParams({ conversation_id: conversationId, limit: '30' });
    if (olderThan) query.set('starting_after', olderThan);
    return this.#call('GET', `/v1/messages?${query}`);
  }

  sendMessage(conversationId: string, text: string): Promise<Message> {
    return this.#call('POST', '/v1/messages', { conversation_id: conversationId, message: text });
  }

  /** Adds `username` to the message's reaction `name` (reactions are only ever added). */
  react(messageId: string, name: string, username: string): Promise<Message> {
    return this.#call('PUT', `/v1/messages/${encodeURIComponent(messageId)}`, {
      reactions: { [name]: [username] },
    });
  }

  /** Puts this token's world back to the seeded one (a control route of the mock). */
  async reset(): Promise<void> {
    this.#failNext = false;
    await this.#call('POST', '/__mock/reset');
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.#failNext && path.startsWith('/v1/')) {
      headers.Prefer = 'code=503';
      this.#failNext = false;
    }
    let response: Response;
    try {
      response = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new RequestError(0, 'network_error', error instanceof Error ? error.message : String(error));
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed ?? {}) as Partial<ApiErrorBody>;
      throw new RequestError(
        response.status,
        error.code ?? 'unknown',
        error.message ?? (text || response.statusText),
      );
    }
    return parsed as T;
  }
}

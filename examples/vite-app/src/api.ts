/** The app's client of the Messaging API: two calls, typed with the mock's own types. */
import type { Contact, Message, Page } from 'messaging-api-mock';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class Api {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  private async get<T>(path: string): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      headers: { Authorization: `Bearer ${this.token}` },
    });
    const body = await response.json();
    if (!response.ok) throw new ApiError(response.status, body.error?.message ?? response.statusText);
    return body as T;
  }

  contacts(limit = 100): Promise<Page<Contact>> {
    return this.get(`/v1/contacts?limit=${limit}`);
  }

  messages(conversationId: string, limit = 20): Promise<Page<Message>> {
    return this.get(`/v1/messages?conversation_id=${encodeURIComponent(conversationId)}&limit=${limit}`);
  }
}

import { CONTACT, MESSAGE } from '../../contract-tests/rules/fields';
import type { ProxyExchange } from '../../contract-tests/http/exchange';
import { documented, senderOf } from './records';

/**
 * Exchanges made by hand for the judge's tests (proxy-judge.test.ts, walks.test.ts): one token, a
 * clock that moves a second per exchange, and records as the document gives them.
 */
export const AUTH = 'Bearer secret-token-123';
let seq = 0;
let clock = 1_795_000_000_000;

export function exchange(
  method: string,
  url: string,
  status: number,
  answer?: unknown,
  options: {
    sent?: Record<string, string>;
    headers?: Record<string, string>;
    answerHeaders?: Record<string, string>;
  } = {},
): ProxyExchange {
  const startedAt = (clock += 1000);
  return {
    seq: ++seq,
    method,
    url,
    requestHeaders: {
      authorization: AUTH,
      ...(options.sent ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...options.headers,
    },
    requestBody: Buffer.from(options.sent ? new URLSearchParams(options.sent).toString() : ''),
    status,
    responseHeaders: { 'content-type': 'application/json', ...options.answerHeaders },
    responseBody: Buffer.from(answer === undefined ? '' : JSON.stringify(answer)),
    startedAt,
    finishedAt: startedAt + 5,
  };
}

export const now = () => Math.floor(clock / 1000);
export const contact = (n: number, extra: Record<string, unknown> = {}) =>
  documented(CONTACT, {
    id: `C${String(n).padStart(15, '0')}`,
    username: `user${n}`,
    phone_number: '+1 555 0100',
    avatar_url: `https://example.com/${n}.png`,
    display_name: `User ${n}`,
    conversation_id: `V${String(n).padStart(15, '0')}`,
    last_active_at: null,
    created_at: now() - n,
    ...extra,
  });
export const message = (n: number, conversation = 1, extra: Record<string, unknown> = {}) => {
  return documented(MESSAGE, {
    id: `M${String(n).padStart(15, '0')}`,
    conversation_id: contact(conversation).conversation_id,
    contact: senderOf(contact(conversation)),
    message: `text ${n}`,
    reactions: [],
    attachments: [],
    read_at: null,
    created_at: now() - n,
    updated_at: null,
    ...extra,
  });
};
export const page = (data: unknown[], has_more = false) => ({ has_more, data });

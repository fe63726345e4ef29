import type { Express } from 'express';
import request from 'supertest';
import { createApp, type AppOptions } from '../src/express/app';
import type { Worlds } from '../src/store/worlds';
import type { Contact, Message } from '../src/types';

export const TOKEN = 'test-token';

/** A small world (so tests are fast) that each test builds for itself. */
export function makeApp(options: AppOptions = {}): Express {
  return createApp({ contacts: 6, messages: 40, ...options });
}

/** Requests with a Bearer token: `api(app).get('/v1/contacts')`. */
export function api(app: Express, token = TOKEN) {
  const agent = request(app);
  const auth = <T extends request.Test>(test: T): T => test.set('Authorization', `Bearer ${token}`);
  return {
    get: (path: string) => auth(agent.get(path)),
    post: (path: string) => auth(agent.post(path)),
    put: (path: string) => auth(agent.put(path)),
    delete: (path: string) => auth(agent.delete(path)),
    patch: (path: string) => auth(agent.patch(path)),
    head: (path: string) => auth(agent.head(path)),
  };
}

export function worldsOf(app: Express): Worlds {
  return app.locals.worlds as Worlds;
}

/** The whole world of a token as data, for "changes nothing" checks. */
export function snapshot(app: Express, token = TOKEN): string {
  return JSON.stringify(worldsOf(app).of(token).toData());
}

export async function createContact(
  app: Express,
  fields: Record<string, string> = {},
  token = TOKEN,
): Promise<Contact> {
  const res = await api(app, token)
    .post('/v1/contacts')
    .type('form')
    .send({ username: 'alice', phone_number: '+1 555 0100', ...fields })
    .expect(201);
  return res.body as Contact;
}

export async function sendMessage(
  app: Express,
  conversation_id: string,
  message = 'Hello there',
  token = TOKEN,
): Promise<Message> {
  const res = await api(app, token)
    .post('/v1/messages')
    .type('form')
    .send({ conversation_id, message })
    .expect(201);
  return res.body as Message;
}

/** A fixed clock that tests move by hand. */
export function manualClock(start = 1_800_000_000) {
  let now = start;
  return { now: () => now, advance: (seconds: number) => void (now += seconds) };
}

export function expectError(body: unknown, code: string, param?: string): void {
  expect(body).toEqual(
    expect.objectContaining({
      type: expect.stringMatching(/^(invalid_request|api_error)$/),
      code,
      message: expect.any(String),
    }),
  );
  const error = body as { param?: string; message: string };
  if (param === undefined) expect(error.param).toBeUndefined();
  else expect(error.param).toBe(param);
  expect(error.message).not.toMatch(/\bat \S+ \(|node_modules|express|body-parser/i);
}

/**
 * A scripted client session for the proxy's tests, as a frontend would send it: every endpoint
 * (list, create, retrieve, update with reactions and attachments, delete and its cascade), paging
 * with limit and a cursor, and the errors a client meets. It judges nothing itself: the proxy in
 * front of the server does. It sends only what the API document shows, so that any honest server
 * can answer it; where a server fills a gap its own way (another next-page parameter, another
 * error status), the session goes on whatever it is answered.
 */
type Json = Record<string, any>;

export interface SessionOptions {
  /** The token of the session's user, and another user's (for an id of the first one's). */
  token: string;
  otherToken?: string;
  /** A label that makes the session's usernames its own. */
  label: string;
}

interface Answer {
  status: number;
  body: Json | undefined;
}

export async function scriptedSession(base: string, options: SessionOptions): Promise<void> {
  const auth = { Authorization: `Bearer ${options.token}` };
  const call = async (
    method: string,
    path: string,
    form?: [string, string][],
    headers: Record<string, string> = auth,
  ): Promise<Answer> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(form ? { body: new URLSearchParams(form) } : {}),
    });
    const text = await response.text();
    let body: Json | undefined;
    try {
      body = text ? (JSON.parse(text) as Json) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  };
  const ok = (answer: Answer, what: string): Json => {
    if (answer.status < 200 || answer.status >= 300 || !answer.body)
      throw new Error(`the session could not go on: ${what} answered ${answer.status}`);
    return answer.body;
  };
  const id = (item: Json | undefined) => encodeURIComponent(String(item?.id));

  // The lists, before anything is created: the default page, limit, and a page further on.
  await call('GET', '/v1/contacts');
  const three = ok(await call('GET', '/v1/contacts?limit=3'), 'a page of three contacts');
  const last = three.data?.at(-1);
  if (last) await call('GET', `/v1/contacts?limit=3&starting_after=${id(last)}`);
  await call('GET', '/v1/contacts?limit=50');
  // The document's example parameter, alone, both ways.
  await call('GET', '/v1/contacts?active=true');
  await call('GET', '/v1/contacts?active=false');
  await call('HEAD', '/v1/contacts');
  await call('GET', '/v1/messages');
  await call('GET', '/v1/messages?limit=5');
  await call('OPTIONS', '/v1/contacts', undefined, {
    Origin: 'http://frontend.example',
    'Access-Control-Request-Method': 'PUT',
    'Access-Control-Request-Headers': 'authorization,content-type',
  });

  // Two contacts: one without display_name, one with.
  const a = ok(
    await call('POST', '/v1/contacts', [
      ['username', `${options.label}_ada`],
      ['phone_number', '+1 555 0100 2001'],
    ]),
    'a create',
  );
  const b = ok(
    await call('POST', '/v1/contacts', [
      ['username', `${options.label}_bo`],
      ['phone_number', '+1 555 0100 2002'],
      ['display_name', 'Bo'],
    ]),
    'a create with display_name',
  );
  const ada = ok(await call('GET', `/v1/contacts/${id(a)}`), 'a retrieve');
  ok(await call('PUT', `/v1/contacts/${id(a)}`, [['display_name', 'Ada L.']]), 'a rename');
  // Another attribute than display_name: refused or ignored by an honest server.
  await call('PUT', `/v1/contacts/${id(a)}`, [
    ['display_name', 'Ada Lovelace'],
    ['username', `${options.label}_renamed`],
  ]);
  await call('GET', `/v1/contacts/${id(a)}`);
  await call('GET', '/v1/contacts?limit=50');
  await call('GET', '/v1/contacts');

  // Messages in Ada's conversation: plain, with an attachment, plain.
  const conversation = String(ada.conversation_id);
  const send = (text: string, extra: [string, string][] = []) =>
    call('POST', '/v1/messages', [['conversation_id', conversation], ['message', text], ...extra]);
  const m1 = ok(await send('Hello Ada'), 'a send');
  const m2 = ok(
    await send('The slides', [
      ['attachments[0][filename]', 'slides.pdf'],
      ['attachments[0][file_url]', 'https://files.example.com/slides.pdf'],
      ['attachments[0][file_type]', 'application/pdf'],
    ]),
    'a send with an attachment',
  );
  const m3 = ok(await send('See you'), 'a third send');
  await call('GET', `/v1/messages/${id(m1)}`);
  ok(await call('PUT', `/v1/messages/${id(m1)}`, [['message', 'Hello Ada!']]), 'an edit');
  ok(await call('PUT', `/v1/messages/${id(m1)}`, [['reactions[thumbs_up][]', 'grace']]), 'a reaction');
  ok(await call('PUT', `/v1/messages/${id(m1)}`, [['reactions[thumbs_up][]', 'alan']]), 'a second reaction');
  const attach = (message: Json, name: string) =>
    call('PUT', `/v1/messages/${id(message)}`, [
      ['attachments[0][filename]', name],
      ['attachments[0][file_url]', `https://files.example.com/${name}`],
    ]);
  ok(await attach(m1, 'notes.txt'), 'an added attachment');
  ok(await attach(m2, 'more.txt'), 'an attachment added to one');
  ok(await call('PUT', `/v1/messages/${id(m1)}`, [['message', 'Hello, Ada!']]), 'a second edit');
  await call('GET', `/v1/messages/${id(m1)}`);
  const inConversation = `/v1/messages?conversation_id=${encodeURIComponent(conversation)}`;
  await call('GET', inConversation);
  const two = (await call('GET', `${inConversation}&limit=2`)).body;
  if (two?.data?.length) await call('GET', `${inConversation}&limit=2&starting_after=${id(two.data.at(-1))}`);
  const all = (await call('GET', `${inConversation}&limit=3`)).body;
  if (all?.data?.length) await call('GET', `${inConversation}&limit=3&starting_after=${id(all.data.at(-1))}`);
  await call('GET', '/v1/messages?limit=50');

  // A message deleted is gone.
  await call('DELETE', `/v1/messages/${id(m3)}`);
  await call('GET', `/v1/messages/${id(m3)}`);
  await call('GET', inConversation);

  // Errors: no token, an unknown id, a missing parameter, a bad limit, a path outside the API,
  // another user's view of this one's contact, and an error asked of the mock (Prefer).
  await call('GET', '/v1/contacts', undefined, {});
  await call('GET', '/v1/contacts/no-such-contact');
  await call('POST', '/v1/contacts', [['username', `${options.label}_nophone`]]);
  await call('GET', '/v1/messages?limit=0');
  await call('GET', '/no-such-path');
  if (options.otherToken)
    await call('GET', `/v1/contacts/${id(a)}`, undefined, { Authorization: `Bearer ${options.otherToken}` });
  await call('GET', '/v1/contacts?limit=2', undefined, { ...auth, Prefer: 'code=503' });

  // A contact deleted takes its conversation with it.
  await call('DELETE', `/v1/contacts/${id(a)}`);
  await call('GET', `/v1/contacts/${id(a)}`);
  await call('GET', inConversation);
  await call('GET', `/v1/messages/${id(m1)}`);
  await send('Are you there?');
  await call('GET', '/v1/messages?limit=50');
  await call('GET', '/v1/contacts?limit=50');
  await call('GET', '/v1/contacts?active=false&limit=50');
  await call('DELETE', `/v1/contacts/${id(b)}`);
}

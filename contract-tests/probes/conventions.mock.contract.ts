/**
 * The mock rule set: how the mock fills what the document leaves out (docs/api.md, part 2: C1–C20).
 * These tests are declared only with CONTRACT_RULE_SET=mock; a server that fills the gaps another
 * way is not wrong, so the documented rule set never asks for any of this.
 */
import { config } from '../http/config';
import { API_ERROR_CODES } from '../rules/errors';
import { SENDER } from '../rules/fields';
import {
  contactForm,
  deleteResource,
  makeContact,
  makeContacts,
  makeMessage,
  makeMessages,
  messageText,
  postContact,
  postMessage,
  shared,
  useCleanup,
  type Json,
} from '../model/data';
import { is2xx, send, type Exchange } from '../http/http';
import { idOf, walk } from '../model/paging';
import { rule, type RuleContext } from '../model/harness';
import { reactionPair } from '../model/samples';
import { MADE_UP_IDS, recordPath } from '../rules/resources';

useCleanup();

const ID = /^[A-Za-z0-9]{16}$/;
const CODES: ReadonlySet<string> = new Set(API_ERROR_CODES);
/** The mock accepts any token, so without CONTRACT_TOKEN_2 the kit makes up a second user. */
const secondToken = () => config.token2 ?? `${config.token}-second-${config.runId}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * A refusal as a convention names it: the status (C3), the code and, when given, the param. The
 * error body's form (type, message, flat, no stack trace) is C2's alone: expectErrorBody, in
 * mock.error-body's test, and the judge on every refusal of the run.
 */
function expectError(t: RuleContext, exchange: Exchange, status: number, code: string, param?: string): void {
  t.status(exchange, status, `${exchange.method} ${exchange.path}`);
  const body = exchange.body as Json | undefined;
  t.check(
    body && typeof body === 'object' && body.code === code,
    `code should be ${code}, got ${JSON.stringify(body?.code)}`,
    exchange,
  );
  if (param !== undefined)
    t.check(body.param === param, `param should be ${param}, got ${JSON.stringify(body.param)}`, exchange);
}

/** C2: a flat error object with the expected status and code (and param, when given). */
function expectErrorBody(
  t: RuleContext,
  exchange: Exchange,
  status: number,
  code: string,
  param?: string,
): void {
  expectError(t, exchange, status, code, param);
  const body = exchange.body as Json;
  t.check(
    body.type === (status >= 500 ? 'api_error' : 'invalid_request'),
    `type should be invalid_request, got ${JSON.stringify(body.type)}`,
    exchange,
  );
  t.check(typeof body.message === 'string' && body.message.length > 0, 'the error has no message', exchange);
  const extra = Object.keys(body).filter((k) => !['type', 'code', 'message', 'param'].includes(k));
  t.check(extra.length === 0, `the error body is not flat: it also has ${extra.join(', ')}`, exchange);
  t.check(!/\n\s+at /.test(exchange.text), 'the error body holds a stack trace', exchange);
}

const conversation = shared(async () => {
  const contact = await makeContact('conv');
  const messages = await makeMessages(contact.conversation_id, 'walk', 7);
  return { contact, messages };
});

rule(
  'mock.success-codes',
  'GET and PUT answer 200, POST 201, DELETE 204 with an empty body',
  async (t: RuleContext) => {
    const created = await postContact(contactForm('codes'));
    t.status(created, 201, 'POST /v1/contacts');
    const id = (created.body as Json).id;
    t.status(await send('GET', '/v1/contacts'), 200, 'GET /v1/contacts');
    t.status(await send('GET', recordPath('contact', id)), 200, 'GET /v1/contacts/:id');
    t.status(
      await send('PUT', recordPath('contact', id), { form: { display_name: 'Codes' } }),
      200,
      'PUT /v1/contacts/:id',
    );
    const conversationId = (created.body as Json).conversation_id as string;
    const sent = await postMessage([
      ['conversation_id', conversationId],
      ['message', messageText('codes')],
    ]);
    t.status(sent, 201, 'POST /v1/messages');
    const mid = (sent.body as Json).id;
    t.status(await send('GET', '/v1/messages'), 200, 'GET /v1/messages');
    t.status(await send('GET', recordPath('message', mid)), 200, 'GET /v1/messages/:id');
    t.status(
      await send('PUT', recordPath('message', mid), { form: { message: 'codes edited' } }),
      200,
      'PUT /v1/messages/:id',
    );
    for (const path of [recordPath('message', mid), recordPath('contact', id)]) {
      const removed = await send('DELETE', path);
      t.status(removed, 204, `DELETE ${path}`);
      t.check(removed.text === '', 'a 204 carries a body', removed);
    }
  },
);

rule(
  'mock.error-body',
  'errors are flat {type, code, message, param?} objects with known codes',
  async (t: RuleContext) => {
    const unknown = await send('GET', recordPath('contact', MADE_UP_IDS.contact));
    expectErrorBody(t, unknown, 404, 'not_found');
    t.check(!('param' in (unknown.body as Json)), 'param is set although no parameter is at fault', unknown);
    expectErrorBody(
      t,
      await postContact(contactForm('errbody').filter(([k]) => k !== 'username')),
      400,
      'parameter_missing',
      'username',
    );
    expectErrorBody(t, await send('GET', '/v1/contacts', { token: null }), 401, 'missing_token');
    expectErrorBody(
      t,
      await send('GET', '/v1/contacts', { query: { limit: 0 } }),
      400,
      'parameter_invalid',
      'limit',
    );
    expectErrorBody(t, await send('GET', '/v1/nothing-here'), 404, 'route_not_found');
    const malformed = await send('POST', '/v1/contacts', {
      raw: { type: 'application/json', data: '{"username": ' },
    });
    expectErrorBody(t, malformed, 400, 'malformed_body');
    for (const exchange of t.exchanges.filter((e) => e.status >= 400)) {
      t.check(
        CODES.has(String((exchange.body as Json | undefined)?.code)),
        'an error code outside the catalogue',
        exchange,
      );
    }
  },
);

rule(
  'mock.error-statuses',
  '400, 401 with WWW-Authenticate, 404, 405 with Allow, 413 and 415',
  async (t: RuleContext) => {
    t.status(await send('GET', '/v1/contacts', { query: { limit: 'abc' } }), 400, 'limit=abc');
    const unauthorized = await send('GET', '/v1/messages', { token: null });
    t.status(unauthorized, 401, 'no Authorization');
    t.check(
      /^Bearer\b/i.test(unauthorized.headers['www-authenticate'] ?? ''),
      'a 401 without WWW-Authenticate: Bearer',
      unauthorized,
    );
    t.status(await send('GET', recordPath('message', MADE_UP_IDS.message)), 404, 'an unknown message id');
    t.status(await send('GET', '/v1/conversations'), 404, 'an unknown route');
    for (const [method, path, allowed] of [
      ['PATCH', '/v1/contacts', ['GET', 'POST']],
      ['DELETE', '/v1/messages', ['GET', 'POST']],
      ['POST', recordPath('contact', MADE_UP_IDS.contact), ['GET', 'PUT', 'DELETE']],
    ] as const) {
      const refused = await send(method, path);
      t.status(refused, 405, `${method} ${path}`);
      const allow = (refused.headers.allow ?? '').split(/,\s*/);
      t.check(
        allowed.every((m) => allow.includes(m)),
        `Allow should list ${allowed.join(', ')}, got ${JSON.stringify(refused.headers.allow)}`,
        refused,
      );
    }
    const big = await send('POST', '/v1/contacts', {
      form: contactForm('big', { display_name: 'x'.repeat(110 * 1024) }),
    });
    expectError(t, big, 413, 'body_too_large');
    expectError(
      t,
      await send('POST', '/v1/contacts', { raw: { type: 'text/plain', data: 'username=a' } }),
      415,
      'unsupported_media_type',
    );
  },
);

rule(
  'mock.token-isolation',
  "another token cannot see, change or delete this token's data; malformed headers get 401",
  async (t: RuleContext) => {
    const contact = await makeContact('mine', { display_name: 'Mine' });
    const message = await makeMessage(contact.conversation_id, 'mine');
    const other = secondToken();
    if (!config.token2 && (await send('GET', '/v1/contacts', { token: other })).status === 401) {
      t.notRun('the server refuses the second token the kit made up; pass --token-2 (CONTRACT_TOKEN_2)');
    }
    expectError(t, await send('GET', recordPath('contact', contact.id), { token: other }), 404, 'not_found');
    expectError(
      t,
      await send('PUT', recordPath('contact', contact.id), {
        token: other,
        form: { display_name: 'Theirs' },
      }),
      404,
      'not_found',
    );
    expectError(
      t,
      await send('DELETE', recordPath('contact', contact.id), { token: other }),
      404,
      'not_found',
    );
    expectError(t, await send('GET', recordPath('message', message.id), { token: other }), 404, 'not_found');
    // That the answer is 404 not_found is mock.unknown-conversation's (C10); here, that it shows nothing.
    const listed = await send('GET', '/v1/messages', {
      token: other,
      query: { conversation_id: contact.conversation_id },
    });
    t.check(
      !(is2xx(listed) && JSON.stringify(listed.body).includes(message.id)),
      "another token's list of this token's conversation shows its message",
      listed,
    );
    const theirs = await send('GET', '/v1/contacts', { token: other, query: { limit: 100 } });
    t.check(
      !JSON.stringify(theirs.body).includes(contact.id),
      "the other token's list shows this token's contact",
      theirs,
    );
    const mine = await send('GET', recordPath('contact', contact.id));
    t.check((mine.body as Json | undefined)?.display_name === 'Mine', 'the contact changed', mine);
    expectError(
      t,
      await send('GET', '/v1/contacts', { token: 'raw:Basic dXNlcjpwYXNz' }),
      401,
      'invalid_token',
    );
    expectError(t, await send('GET', '/v1/contacts', { token: 'raw:Bearer' }), 401, 'invalid_token');
  },
);

rule('mock.unix-seconds', 'timestamps are integer Unix seconds', async (t: RuleContext) => {
  const created = await postContact(contactForm('seconds'));
  const at = (created.body as Json).created_at;
  t.check(
    Number.isInteger(at) && Math.abs((at as number) - nowSeconds()) < 300,
    `created_at ${JSON.stringify(at)} is not the current Unix second`,
    created,
  );
  const sent = await postMessage([
    ['conversation_id', String((created.body as Json).conversation_id)],
    ['message', messageText('seconds')],
  ]);
  const mat = (sent.body as Json).created_at;
  t.check(
    Number.isInteger(mat) && Math.abs((mat as number) - nowSeconds()) < 300,
    `created_at ${JSON.stringify(mat)} is not the current Unix second`,
    sent,
  );
});

rule(
  'mock.ids',
  'ids are 16 characters of [A-Za-z0-9] and never collide across kinds',
  async (t: RuleContext) => {
    const contact = await makeContact('ids');
    const sent = await postMessage([
      ['conversation_id', contact.conversation_id],
      ['message', messageText('ids')],
      ['attachments[0][filename]', 'a.pdf'],
      ['attachments[0][file_url]', 'https://example.com/a.pdf'],
    ]);
    const message = sent.body as Json;
    const attachment = ((message.attachments as Json[] | undefined) ?? [])[0] ?? {};
    const ids = [contact.id, contact.conversation_id, message.id, attachment.id];
    for (const id of ids)
      t.check(
        typeof id === 'string' && ID.test(id),
        `${JSON.stringify(id)} is not 16 characters of [A-Za-z0-9]`,
        sent,
      );
    t.check(new Set(ids).size === ids.length, 'ids of different kinds collide', sent);
  },
);

rule('mock.newest-first', 'lists are newest first', async (t: RuleContext) => {
  const contacts = await makeContacts('order', 3);
  const listed = await send('GET', '/v1/contacts', { query: { limit: 100 } });
  const data = ((listed.body as Json).data as Json[]).map(idOf);
  const positions = contacts.map((c) => data.indexOf(c.id));
  t.check(
    positions.every((p) => p >= 0),
    "the kit's new contacts are not on the first page of 100",
    listed,
  );
  t.check(
    positions[0]! > positions[1]! && positions[1]! > positions[2]!,
    `contacts made in order appear at ${positions.join(', ')}`,
    listed,
  );
  const times = ((listed.body as Json).data as Json[]).map((c) => c.created_at as number);
  t.check(
    times.every((v, i) => i === 0 || v <= times[i - 1]!),
    'created_at is not descending',
    listed,
  );
  const { contact, messages } = await conversation();
  const inConversation = await send('GET', '/v1/messages', {
    query: { conversation_id: contact.conversation_id },
  });
  const order = ((inConversation.body as Json).data as Json[]).map(idOf);
  t.check(
    JSON.stringify(order) === JSON.stringify(messages.map((m) => m.id).reverse()),
    'the conversation is not newest first',
    inConversation,
  );
});

rule(
  'mock.limit-bounds',
  'limit is 1–100, default 10; anything else is 400 parameter_invalid',
  async (t: RuleContext) => {
    for (const limit of ['0', '101', 'abc', '-1', '1.5', '']) {
      expectError(
        t,
        await send('GET', '/v1/messages', { query: { limit } }),
        400,
        'parameter_invalid',
        'limit',
      );
    }
    const contact = await makeContact('limit');
    await makeMessages(contact.conversation_id, 'limit', 11);
    const one = await send('GET', '/v1/messages', {
      query: { conversation_id: contact.conversation_id, limit: 1 },
    });
    t.check(((one.body as Json).data as Json[]).length === 1, 'limit=1 did not give one item', one);
    const byDefault = await send('GET', '/v1/messages', {
      query: { conversation_id: contact.conversation_id },
    });
    t.check(
      ((byDefault.body as Json).data as Json[]).length === 10,
      'the default page of a conversation of 11 is not 10',
      byDefault,
    );
    const hundred = await send('GET', '/v1/messages', { query: { limit: 100 } });
    t.status(hundred, 200, 'limit=100');
  },
);

rule(
  'mock.cursor-walks',
  'starting_after and ending_before walk the whole list with no duplicates or gaps',
  async (t: RuleContext) => {
    const contact = await makeContact('cursor');
    const made = await makeMessages(contact.conversation_id, 'cursor', 7);
    // The walks must give the list's own order (which order that is, is mock.newest-first's):
    // the order of one page that holds them all, newest first for what it leaves out.
    const whole = await send('GET', '/v1/messages', {
      query: { conversation_id: contact.conversation_id, limit: '100' },
    });
    const order = (((whole.body as Json | undefined)?.data as Json[] | undefined) ?? []).map(idOf);
    const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
    const expected = made
      .map((m) => m.id)
      .reverse()
      .sort((a, b) => rank(a) - rank(b));
    const q = { conversation_id: contact.conversation_id, limit: '2' };
    // Forward from the start.
    const forward: string[] = [];
    let page = await send('GET', '/v1/messages', { query: q });
    for (let i = 0; i < 10; i++) {
      const body = page.body as Json;
      const data = (body.data as Json[]).map(idOf);
      forward.push(...data);
      const more = forward.length < expected.length;
      t.check(body.has_more === more, `forward page ${i + 1}: has_more should be ${more}`, page);
      if (!more) break;
      page = await send('GET', '/v1/messages', { query: { ...q, starting_after: data.at(-1)! } });
    }
    t.check(
      JSON.stringify(forward) === JSON.stringify(expected),
      `the forward walk gave ${forward.length} items, with duplicates, gaps or in another order`,
      page,
    );
    // Backward from the oldest.
    const backward: string[] = [];
    let cursor = expected.at(-1)!;
    for (let i = 0; i < 10; i++) {
      page = await send('GET', '/v1/messages', { query: { ...q, ending_before: cursor } });
      const body = page.body as Json;
      const data = (body.data as Json[]).map(idOf);
      backward.unshift(...data);
      const more = backward.length < expected.length - 1;
      t.check(body.has_more === more, `backward page ${i + 1}: has_more should be ${more}`, page);
      if (!more || data.length === 0) break;
      cursor = data[0]!;
    }
    t.check(
      JSON.stringify(backward) === JSON.stringify(expected.slice(0, -1)),
      `the backward walk gave ${backward.length} items, with duplicates, gaps or in another order`,
      page,
    );
    expectError(
      t,
      await send('GET', '/v1/messages', {
        query: { ...q, starting_after: expected[0]!, ending_before: expected[2]! },
      }),
      400,
      'parameter_invalid',
    );
    expectError(
      t,
      await send('GET', '/v1/messages', { query: { ...q, starting_after: 'zz0no0such0item0' } }),
      400,
      'parameter_invalid',
      'starting_after',
    );
    const { messages: elsewhere } = await conversation();
    expectError(
      t,
      await send('GET', '/v1/messages', { query: { ...q, ending_before: elsewhere[0]!.id } }),
      400,
      'parameter_invalid',
      'ending_before',
    );
  },
);

rule(
  'mock.active-filter',
  'active=true lists only contacts active once, active=false only the others',
  async (t: RuleContext) => {
    const fresh = await makeContact('inactive');
    for (const [active, nullExpected] of [
      ['true', false],
      ['false', true],
    ] as const) {
      const walked = await walk('/v1/contacts', { active }, { limit: 100, maxPages: 20 });
      t.check(walked.pages.length > 0, `active=${active} did not answer a page`, t.last);
      const wrong = walked.items.find((c) => (c.last_active_at === null) !== nullExpected);
      t.check(
        wrong === undefined,
        `active=${active} lists a contact with last_active_at ${JSON.stringify(wrong?.last_active_at)}`,
        walked.pages[0]!.exchange,
      );
      const listed = walked.items.some((c) => idOf(c) === fresh.id);
      t.check(
        listed === nullExpected,
        `active=${active} ${listed ? 'lists' : 'does not list'} a contact that was never active`,
        walked.pages[0]!.exchange,
      );
    }
    expectError(
      t,
      await send('GET', '/v1/contacts', { query: { active: 'maybe' } }),
      400,
      'parameter_invalid',
      'active',
    );
  },
);

rule(
  'mock.unknown-conversation',
  'an unknown conversation_id is 404 not_found, also after its contact was deleted',
  async (t: RuleContext) => {
    expectError(
      t,
      await send('GET', '/v1/messages', { query: { conversation_id: 'zz0no0such0conv0' } }),
      404,
      'not_found',
      'conversation_id',
    );
    expectError(
      t,
      await postMessage([
        ['conversation_id', 'zz0no0such0conv0'],
        ['message', 'hello'],
      ]),
      404,
      'not_found',
      'conversation_id',
    );
    const contact = await makeContact('gone');
    // Another user's conversation is not one of this user's (unless the server refuses the made-up
    // second token, which mock.token-isolation reports).
    const theirs = await send('GET', '/v1/messages', {
      token: secondToken(),
      query: { conversation_id: contact.conversation_id },
    });
    if (config.token2 || theirs.status !== 401) expectError(t, theirs, 404, 'not_found', 'conversation_id');
    t.status(await send('DELETE', recordPath('contact', contact.id)), 204, 'DELETE the contact');
    expectError(
      t,
      await send('GET', '/v1/messages', { query: { conversation_id: contact.conversation_id } }),
      404,
      'not_found',
      'conversation_id',
    );
  },
);

rule(
  'mock.sender-exact',
  "a message's contact has exactly the six fields, as the contact is now",
  async (t: RuleContext) => {
    const contact = await makeContact('exact', { display_name: 'Before' });
    const message = await makeMessage(contact.conversation_id, 'exact');
    await send('PUT', recordPath('contact', contact.id), { form: { display_name: 'After' } });
    const stored = (await send('GET', recordPath('contact', contact.id))).body as Json;
    const retrieved = await send('GET', recordPath('message', message.id));
    const sender = (retrieved.body as Json).contact as Json;
    const fields = Object.keys(SENDER);
    t.check(
      JSON.stringify(Object.keys(sender).sort()) === JSON.stringify([...fields].sort()),
      `the contact has the fields ${Object.keys(sender).join(', ')}`,
      retrieved,
    );
    for (const field of fields)
      t.check(
        JSON.stringify(sender[field]) === JSON.stringify(stored[field]),
        `contact.${field} differs from the contact`,
        retrieved,
      );
  },
);

rule(
  'mock.request-bodies',
  'form (with bracket keys), JSON and multipart bodies are accepted',
  async (t: RuleContext) => {
    const username = `${config.runId}_json_${process.pid}`;
    const json = await send('POST', '/v1/contacts', {
      json: { username, phone_number: '+1 555 0100 2000', display_name: 'Json' },
    });
    t.success(json, 'POST /v1/contacts with a JSON body');
    await deleteResource('contact', String((json.body as Json).id));
    const boundary = 'contractkitboundary';
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const multipart = await send('POST', '/v1/contacts', {
      raw: {
        type: `multipart/form-data; boundary=${boundary}`,
        data: `${part('username', `${username}m`)}${part('phone_number', '+1 555 0100 2001')}--${boundary}--\r\n`,
      },
    });
    t.success(multipart, 'POST /v1/contacts with a multipart body');
    await deleteResource('contact', String((multipart.body as Json).id));
    const contact = await makeContact('brackets');
    const sent = await postMessage([
      ['conversation_id', contact.conversation_id],
      ['message', messageText('brackets')],
      ['attachments[0][filename]', 'b.pdf'],
      ['attachments[0][file_url]', 'https://example.com/b.pdf'],
    ]);
    t.success(sent, 'POST /v1/messages with attachments[0][...] keys');
    t.check(
      ((sent.body as Json).attachments as Json[]).length === 1,
      'the bracket keys made no attachment',
      sent,
    );
  },
);

rule(
  'mock.unknown-parameters',
  'unknown or read-only parameters are 400 parameter_unknown, naming the parameter',
  async (t: RuleContext) => {
    expectError(
      t,
      await postContact(contactForm('unknownparam', { nickname: 'x' })),
      400,
      'parameter_unknown',
      'nickname',
    );
    const contact = await makeContact('readonly');
    expectError(
      t,
      await send('PUT', recordPath('contact', contact.id), { form: { username: 'other' } }),
      400,
      'parameter_unknown',
      'username',
    );
    const message = await makeMessage(contact.conversation_id, 'readonly');
    expectError(
      t,
      await send('PUT', recordPath('message', message.id), {
        form: { conversation_id: contact.conversation_id },
      }),
      400,
      'parameter_unknown',
      'conversation_id',
    );
    expectError(
      t,
      await send('GET', recordPath('contact', contact.id), { query: { expand: 'all' } }),
      400,
      'parameter_unknown',
      'expand',
    );
    expectError(
      t,
      await send('GET', '/v1/messages', { query: { page: 2 } }),
      400,
      'parameter_unknown',
      'page',
    );
  },
);

rule(
  'mock.field-rules',
  'field limits, empty display_name rules, strings stored as sent',
  async (t: RuleContext) => {
    expectError(
      t,
      await postContact(contactForm('long', { username: 'u'.repeat(65) })),
      400,
      'parameter_invalid',
      'username',
    );
    expectError(
      t,
      await postContact(contactForm('phone', { phone_number: 'call me' })),
      400,
      'parameter_invalid',
      'phone_number',
    );
    expectError(
      t,
      await postContact(contactForm('avatar', { avatar_url: 'ftp://example.com/a.png' })),
      400,
      'parameter_invalid',
      'avatar_url',
    );
    const empty = await postContact(contactForm('emptyname', { display_name: '' }));
    t.success(empty, 'POST /v1/contacts with an empty display_name');
    t.check(
      (empty.body as Json).display_name === (empty.body as Json).username,
      'an empty display_name on create is not the username',
      empty,
    );
    const cleared = await send('PUT', recordPath('contact', (empty.body as Json).id), {
      form: { display_name: '' },
    });
    t.check(
      (cleared.body as Json | undefined)?.display_name === null,
      'an empty display_name on update does not set it to null',
      cleared,
    );
    const spaced = await postContact(contactForm('spaced', { display_name: '  Spaced  Name ' }));
    t.check(
      (spaced.body as Json).display_name === '  Spaced  Name ',
      'the display_name was not stored exactly as sent',
      spaced,
    );
    const contact = await makeContact('text');
    expectError(
      t,
      await postMessage([
        ['conversation_id', contact.conversation_id],
        ['message', 'm'.repeat(4001)],
      ]),
      400,
      'parameter_invalid',
      'message',
    );
    expectError(
      t,
      await postMessage([
        ['conversation_id', contact.conversation_id],
        ['message', ''],
      ]),
      400,
      'parameter_invalid',
      'message',
    );
  },
);

rule(
  'mock.reactions',
  'reactions keep first-use order, add, never duplicate, and accept JSON',
  async (t: RuleContext) => {
    const contact = await makeContact('reactions');
    const message = await makeMessage(contact.conversation_id, 'reactions');
    const path = recordPath('message', message.id);
    await send('PUT', path, { form: [['reactions[heart][]', 'alice']] });
    await send('PUT', path, {
      form: [
        ['reactions[thumbs_up][]', 'bob'],
        ['reactions[heart][]', 'bob'],
        ['reactions[heart][]', 'alice'],
      ],
    });
    const viaJson = await send('PUT', path, { json: { reactions: [{ party: ['carol'] }] } });
    t.status(viaJson, 200, 'PUT reactions as JSON');
    const expected = [{ heart: ['alice', 'bob'] }, { thumbs_up: ['bob'] }, { party: ['carol'] }];
    t.check(
      JSON.stringify((viaJson.body as Json).reactions) === JSON.stringify(expected),
      `reactions should be ${JSON.stringify(expected)}`,
      viaJson,
    );
    expectError(
      t,
      await send('PUT', path, { form: [['reactions[Bad Name][]', 'dave']] }),
      400,
      'parameter_invalid',
    );
    expectError(
      t,
      await send('PUT', path, { form: [reactionPair('r'.repeat(65), 'dave')] }),
      400,
      'parameter_invalid',
    );
  },
);

rule(
  'mock.attachments',
  'attachments have the seven fields with defaults, and updates append',
  async (t: RuleContext) => {
    const contact = await makeContact('attachments');
    const sent = await postMessage([
      ['conversation_id', contact.conversation_id],
      ['message', messageText('attachments')],
      ['attachments[0][filename]', 'first.bin'],
      ['attachments[0][file_url]', 'https://example.com/first.bin'],
    ]);
    t.success(sent, 'POST /v1/messages with an attachment');
    const message = sent.body as Json;
    const [first] = message.attachments as Json[];
    const fields = ['id', 'message_id', 'filename', 'file_url', 'file_type', 'file_size', 'created_at'];
    t.check(
      first && JSON.stringify(Object.keys(first).sort()) === JSON.stringify([...fields].sort()),
      `an attachment has the fields ${Object.keys(first ?? {}).join(', ')}`,
      sent,
    );
    t.check(
      first.message_id === message.id &&
        first.file_type === 'application/octet-stream' &&
        first.file_size === null,
      'the attachment defaults are wrong',
      sent,
    );
    const added = await send('PUT', recordPath('message', message.id), {
      form: [
        ['attachments[0][filename]', 'second.png'],
        ['attachments[0][file_url]', 'https://example.com/second.png'],
        ['attachments[0][file_type]', 'image/png'],
        ['attachments[0][file_size]', '42'],
      ],
    });
    const missing = await send('PUT', recordPath('message', message.id), {
      form: [['attachments[0][filename]', 'third.txt']],
    });
    expectError(t, missing, 400, 'parameter_missing', 'attachments[0][file_url]');
    const names = (((added.body as Json | undefined)?.attachments as Json[] | undefined) ?? []).map(
      (a) => a.filename,
    );
    t.check(
      JSON.stringify(names) === JSON.stringify(['first.bin', 'second.png']),
      `the update should append, got ${JSON.stringify(names)}`,
      added,
    );
  },
);

rule('mock.updated-at', 'updated_at is set on every update; read_at stays null', async (t: RuleContext) => {
  const contact = await makeContact('updated');
  const message = await makeMessage(contact.conversation_id, 'updated');
  const edited = await send('PUT', recordPath('message', message.id), { form: { message: 'edited once' } });
  const body = edited.body as Json;
  t.check(
    Number.isInteger(body.updated_at) && Math.abs((body.updated_at as number) - nowSeconds()) < 300,
    `updated_at should be now, got ${JSON.stringify(body.updated_at)}`,
    edited,
  );
  t.check(
    (body.updated_at as number) >= (body.created_at as number),
    'updated_at is before created_at',
    edited,
  );
  t.check(body.read_at === null, 'read_at is not null', edited);
});

rule(
  'mock.cascade-at-once',
  'deleting a contact removes every message of its conversation at once',
  async (t: RuleContext) => {
    const contact = await makeContact('cascade');
    const messages = await makeMessages(contact.conversation_id, 'cascade', 3);
    t.status(await send('DELETE', recordPath('contact', contact.id)), 204, 'DELETE the contact');
    for (const message of messages)
      expectError(t, await send('GET', recordPath('message', message.id)), 404, 'not_found');
    const all = await send('GET', '/v1/messages', { query: { limit: 100 } });
    t.check(
      !messages.some((m) => JSON.stringify(all.body).includes(m.id)),
      'a message of the deleted contact is still listed',
      all,
    );
  },
);

rule(
  'mock.cors',
  'a CORS preflight is answered 204 for any origin, allowing Authorization and Content-Type',
  async (t: RuleContext) => {
    const preflight = await send('OPTIONS', '/v1/contacts', {
      token: null,
      headers: {
        Origin: 'https://app.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    t.status(preflight, 204, 'OPTIONS /v1/contacts (preflight)');
    t.check(
      preflight.headers['access-control-allow-origin'] === '*',
      'Access-Control-Allow-Origin is not *',
      preflight,
    );
    const allowed = (preflight.headers['access-control-allow-headers'] ?? '').toLowerCase();
    t.check(
      allowed.includes('authorization') && allowed.includes('content-type'),
      `Access-Control-Allow-Headers is ${JSON.stringify(allowed)}`,
      preflight,
    );
    const simple = await send('GET', '/v1/contacts', { headers: { Origin: 'https://app.example.com' } });
    t.check(
      simple.headers['access-control-allow-origin'] === '*',
      'a GET with an Origin gets no Access-Control-Allow-Origin',
      simple,
    );
  },
);

rule(
  'mock.routing',
  'trailing slashes are tolerated, HEAD is GET, other paths are 404 route_not_found',
  async (t: RuleContext) => {
    const contact = await makeContact('routing');
    t.status(await send('GET', '/v1/contacts/'), 200, 'GET /v1/contacts/');
    const slashed = await send('GET', `${recordPath('contact', contact.id)}/`);
    t.status(slashed, 200, 'GET /v1/contacts/:id/');
    t.check((slashed.body as Json).id === contact.id, 'the trailing slash answered another contact', slashed);
    t.status(await send('HEAD', recordPath('contact', contact.id)), 200, 'HEAD /v1/contacts/:id');
    const head = await send('HEAD', '/v1/contacts');
    t.status(head, 200, 'HEAD /v1/contacts');
    t.check(head.text === '', 'HEAD answered a body', head);
    expectError(t, await send('GET', '/v2/contacts'), 404, 'route_not_found');
    expectError(t, await send('GET', '/contacts'), 404, 'route_not_found');
    expectError(t, await send('GET', '/v1/contacts/a/b'), 404, 'route_not_found');
  },
);

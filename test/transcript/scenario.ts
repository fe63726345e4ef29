/**
 * One scenario of requests that covers every endpoint, body encoding, refusal, switch and control
 * route of the mock, in an order where each step depends on the ones before. The golden
 * transcript (transcript.test.ts) and the comparison of the two transports both send it.
 *
 * Parts of answers that are not the mock's to decide are rewritten before anything compares them:
 * the journal's `time` and `duration_ms`, and the host in a message that shows the URL to use.
 * Ids are made equal by the test that sends it (a counter in place of src/ids).
 */
export interface Answer {
  step: string;
  /** What was sent: method, path, the headers beyond the token, and the body described. */
  request: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Send = (
  step: string,
  method: string,
  path: string,
  init?: { headers?: Record<string, string>; body?: RequestInit['body'] },
) => Promise<Answer & { json: () => any }>;

/** Headers of the connection, which only a socket has. */
const CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** A request's body as the transcript shows it. */
function described(body: RequestInit['body']): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body.length > 300 ? `(${body.length} characters)` : body;
  if (body instanceof FormData) return `(multipart: ${[...body.keys()].join(', ')})`;
  return '(bytes)';
}

/** Sends requests to `base` with fetch and keeps each answer, rewritten as said above, in `answers`. */
export function sender(base: string, answers: Answer[]): Send {
  const host = new URL(base).host;
  return async (step, method, path, init = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: 'Bearer compare', ...init.headers },
      body: init.body,
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (!CONNECTION.has(name)) headers[name] = value;
    });
    const text = await res.text();
    let body = text.replaceAll(host, 'HOST');
    if (path.startsWith('/__mock/requests') && res.status === 200) {
      body = body
        .replace(/"time":"[^"]*"/g, '"time":"T"')
        .replace(/"duration_ms":[0-9.]+/g, '"duration_ms":0');
    }
    // Content-Length is the body's own (for HEAD, the body a GET would have had); then it is
    // counted again for the body as rewritten, which may be shorter or longer.
    if (headers['content-length'] !== undefined) {
      if (method !== 'HEAD' && Number(headers['content-length']) !== Buffer.byteLength(text))
        throw new Error(`${step}: Content-Length ${headers['content-length']} is not the body's length`);
      if (body !== text) headers['content-length'] = String(Buffer.byteLength(body));
    }
    const sentHeaders = Object.entries(init.headers ?? {}).map(([name, value]) => ` ${name}: ${value}`);
    const request = `${method} ${path}${sentHeaders.join('')}${init.body ? ` ${described(init.body)}` : ''}`;
    const answer = { step, request, status: res.status, headers, body };
    answers.push(answer);
    return { ...answer, json: () => JSON.parse(body) };
  };
}

/** Every endpoint, error and switch, in an order where each step depends on the ones before. */
export async function scenario(send: Send): Promise<void> {
  const json = (value: unknown) => ({
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(value),
  });
  const form = (text: string) => ({
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: text,
  });

  // The API's ten operations, in each body encoding.
  const page = (await send('list contacts', 'GET', '/v1/contacts')).json();
  await send('list active contacts', 'GET', '/v1/contacts?active=true&limit=2');
  await send('page after a cursor', 'GET', `/v1/contacts?starting_after=${page.data[1].id}&limit=3`);
  await send('page before a cursor', 'GET', `/v1/contacts?ending_before=${page.data[3].id}`);
  const created = (
    await send(
      'create a contact (form)',
      'POST',
      '/v1/contacts',
      form('username=ann&phone_number=%2B1%20555'),
    )
  ).json();
  await send(
    'create a contact (JSON)',
    'POST',
    '/v1/contacts',
    json({ username: 'bo', phone_number: '12', display_name: 'Bo' }),
  );
  const multipart = new FormData();
  multipart.append('username', 'cy');
  multipart.append('phone_number', '34');
  await send('create a contact (multipart)', 'POST', '/v1/contacts', { body: multipart });
  await send('the journal of three bodies', 'GET', '/__mock/requests?limit=3');
  await send('retrieve a contact', 'GET', `/v1/contacts/${created.id}`);
  await send('retrieve a contact, HEAD', 'HEAD', `/v1/contacts/${created.id}`);
  await send('rename a contact', 'PUT', `/v1/contacts/${created.id}`, json({ display_name: 'Ann A.' }));
  await send('clear a display name', 'PUT', `/v1/contacts/${created.id}`, form('display_name='));
  const sent = (
    await send(
      'send a message with an attachment',
      'POST',
      '/v1/messages',
      json({
        conversation_id: created.conversation_id,
        message: 'Hello',
        attachments: [{ filename: 'a.pdf', file_url: 'https://example.com/a.pdf' }],
      }),
    )
  ).json();
  await send('list a conversation', 'GET', `/v1/messages?conversation_id=${created.conversation_id}`);
  await send('list all messages', 'GET', '/v1/messages?limit=5');
  await send('retrieve a message', 'GET', `/v1/messages/${sent.id}`);
  await send(
    'react (form)',
    'PUT',
    `/v1/messages/${sent.id}`,
    form('reactions[heart][]=ann&reactions[heart][]=bo'),
  );
  await send(
    'react and edit (JSON)',
    'PUT',
    `/v1/messages/${sent.id}`,
    json({ message: 'Hi', reactions: { wave: ['cy'] } }),
  );
  await send('delete a message', 'DELETE', `/v1/messages/${sent.id}`);
  await send('a deleted message', 'GET', `/v1/messages/${sent.id}`);
  await send('delete a contact (cascade)', 'DELETE', `/v1/contacts/${created.id}`);
  await send('its conversation, gone', 'GET', `/v1/messages?conversation_id=${created.conversation_id}`);

  // Refusals.
  await send('no token', 'GET', '/v1/contacts', { headers: { Authorization: '' } });
  await send('not a bearer token', 'GET', '/v1/contacts', { headers: { Authorization: 'Basic abc' } });
  await send('unknown route', 'GET', '/v1/contact');
  await send('unknown route, no token', 'GET', '/elsewhere', { headers: { Authorization: '' } });
  await send('method not allowed', 'PATCH', '/v1/contacts');
  await send('unknown id', 'PUT', '/v1/contacts/nope', json({ display_name: 'x' }));
  await send('malformed percent-encoding', 'GET', '/v1/contacts/%E0%A4%A');
  await send('missing parameter', 'POST', '/v1/contacts', json({ username: 'dee' }));
  await send('invalid parameter', 'GET', '/v1/contacts?limit=0');
  await send('unknown parameter', 'GET', '/v1/contacts?colour=red');
  await send('parameter twice', 'POST', '/v1/contacts?username=a', form('username=b&phone_number=1'));
  await send(
    'both cursors',
    'GET',
    `/v1/contacts?starting_after=${page.data[0].id}&ending_before=${page.data[2].id}`,
  );
  await send('a cursor from elsewhere', 'GET', '/v1/contacts?starting_after=nothere');
  await send('unknown conversation', 'POST', '/v1/messages', json({ conversation_id: 'nope', message: 'x' }));
  await send('parameters on retrieve', 'GET', `/v1/contacts/${page.data[0].id}?x=1`);
  await send('malformed JSON', 'POST', '/v1/contacts', {
    headers: { 'Content-Type': 'application/json' },
    body: '{"a":',
  });
  await send('JSON that is not an object', 'POST', '/v1/contacts', json([1]));
  await send('unsupported media type', 'POST', '/v1/contacts', {
    headers: { 'Content-Type': 'text/plain' },
    body: 'x',
  });
  await send('unsupported charset', 'POST', '/v1/contacts', {
    headers: { 'Content-Type': 'application/json; charset=latin1' },
    body: '{}',
  });
  await send('body too large', 'POST', '/v1/contacts', json({ username: 'x'.repeat(110 * 1024) }));
  await send('nested too deep', 'POST', '/v1/contacts', form('a[b][c][d][e][f][g]=1'));
  await send(
    '__proto__ as a key',
    'PUT',
    `/v1/messages/${page.data[0].id}`,
    form('reactions[__proto__][]=x'),
  );
  await send('a file in multipart', 'POST', '/v1/contacts', {
    body: (() => {
      const data = new FormData();
      data.append('avatar', new Blob(['x']), 'a.png');
      return data;
    })(),
  });
  // The world as the user made it, before it is filled: a fixture to put back after a reset.
  const state = await send('the world as a fixture', 'GET', '/__mock/state');
  const big = page.data[0].conversation_id;
  for (let i = 0; i < 30; i++) {
    const step = `fill the world (${i})`;
    if (
      (await send(step, 'POST', '/v1/messages', json({ conversation_id: big, message: 'y'.repeat(4000) })))
        .status === 409
    )
      break;
  }

  await send('the journal of large bodies', 'GET', '/__mock/requests?limit=2');

  // The switches.
  await send('forced 503', 'GET', '/v1/contacts', { headers: { Prefer: 'code=503' } });
  await send('forced 401', 'GET', '/v1/contacts', { headers: { Prefer: 'code=401' } });
  await send('forced 418 with a delay', 'POST', '/v1/contacts', {
    headers: { Prefer: 'code=418, delay=20' },
  });
  await send('a delay alone', 'GET', '/v1/contacts?limit=1', { headers: { Prefer: 'delay=20' } });
  await send('a bad preference', 'GET', '/v1/contacts', { headers: { Prefer: 'code=200' } });
  await send('an unknown preference', 'GET', '/v1/contacts?limit=1', {
    headers: { Prefer: 'return=minimal' },
  });

  // CORS preflight, the document, and the control routes.
  await send('preflight', 'OPTIONS', '/v1/contacts', {
    headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
  });
  await send('the OpenAPI document', 'GET', '/openapi.json');
  await send('the journal', 'GET', '/__mock/requests?limit=5');
  await send('the journal since an entry', 'GET', '/__mock/requests?since=50&limit=3');
  await send('the journal, bad limit', 'GET', '/__mock/requests?limit=0');
  await send('reset this world', 'POST', '/__mock/reset');
  await send('reset every world, not admin', 'POST', '/__mock/reset?all=true');
  await send('replace the world', 'PUT', '/__mock/state', { body: state.body });
  await send('replace with no JSON', 'PUT', '/__mock/state', { body: '{"contacts":' });
  await send('replace with a bad fixture', 'PUT', '/__mock/state', json({ contacts: [{}], messages: [] }));
  await send('the world, replaced', 'GET', '/v1/contacts?limit=100');
  await send('control route, no token', 'GET', '/__mock/state', { headers: { Authorization: '' } });
  await send('unknown control route', 'GET', '/__mock/nothing');
  await send('the switches, off', 'GET', '/__mock/switches');
  await send(
    'switch on two errors',
    'PUT',
    '/__mock/switches',
    json({ latency_ms: 5, errors: { status: 502, count: 2 } }),
  );
  await send('switched error (1 of 2)', 'GET', '/v1/contacts?limit=1');
  await send('switched error (2 of 2)', 'GET', '/v1/contacts?limit=1');
  await send('the switch used up', 'GET', '/v1/contacts?limit=1');
  await send('the switches, latency left', 'GET', '/__mock/switches');
  await send('a bad switch', 'PUT', '/__mock/switches', form('errors[status]=200&errors[count]=1'));
  await send('switches off', 'DELETE', '/__mock/switches');
  await send('the journal of forced answers', 'GET', '/__mock/requests?limit=4');

  // A missing parameter's hint, in each encoding (the JSON one is among the refusals above).
  await send('missing parameter (form)', 'POST', '/v1/contacts', form('username=dee'));
  const partial = new FormData();
  partial.append('username', 'dee');
  await send('missing parameter (multipart)', 'POST', '/v1/contacts', { body: partial });
  await send(
    'a switch without its count (JSON)',
    'PUT',
    '/__mock/switches',
    json({ errors: { status: 503 } }),
  );
}

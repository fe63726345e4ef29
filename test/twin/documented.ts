import Ajv2020 from 'ajv/dist/2020';

/**
 * Whether a mock (a twin or not) answers as its own `/openapi.json` says: every operation of the
 * API is sent, successes and the refusals of the document's cases (an unknown id, a missing
 * parameter, a bad `limit`, no token), and each answer is compared with the document: its status
 * listed for that operation, its content type, its body by the schema given. The requests are
 * built from the document too (`paged` says whether a second page was reached): the path prefix, the paging parameter and how the next page is
 * given, the attachment fields. Returns what differs, one line each; none when all agree.
 */
type Json = Record<string, any>;

interface Sent {
  status: number;
  type: string;
  text: string;
  body: any;
  headers: Headers;
}

/**
 * A GET sent once more when the connection it went on failed: a kept-alive socket that the server
 * closed while idle (a slow test before this one) is the client's to open again.
 */
async function fetchAgain(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (error) {
    // Undici's network failure ("fetch failed": a reset, the other side closed), never an answer;
    // a TypeError of another realm than the test's, so told by its name.
    if ((error as Error).name !== 'TypeError') throw error;
    return fetch(url);
  }
}

export async function undocumented(
  origin: string,
  token: string,
  given?: Json,
): Promise<{ problems: string[]; answers: number; paged: boolean }> {
  const document: Json = given ?? ((await (await fetchAgain(`${origin}/openapi.json`)).json()) as Json);
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ ...structuredClone(document), $id: 'openapi' });
  const problems: string[] = [];
  let answers = 0;
  let paged = false;

  const template = (end: string) => {
    const found = Object.keys(document.paths).find((path) => path.endsWith(end));
    if (!found) throw new Error(`The document has no path ending in ${end}.`);
    return found;
  };
  const paths = {
    contacts: template('/v1/contacts'),
    contact: template('/v1/contacts/{id}'),
    messages: template('/v1/messages'),
    message: template('/v1/messages/{id}'),
  };
  const resolve = (node: Json): Json => {
    if (typeof node?.$ref !== 'string') return node;
    return resolve(
      node.$ref
        .slice(2)
        .split('/')
        .reduce((at: Json, key: string) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')], document),
    );
  };

  /** Sends one request and compares its answer with the document's operation. */
  async function send(
    method: 'get' | 'post' | 'put' | 'delete',
    path: keyof typeof paths,
    url: string,
    options: { body?: unknown; token?: string | null } = {},
  ): Promise<Sent> {
    const headers: Record<string, string> = {};
    if (options.token !== null) headers.Authorization = `Bearer ${options.token ?? token}`;
    // JSON where the document takes it, else a form with bracket keys (a twin of a forms-only server).
    const takes = resolve(document.paths[paths[path]]?.[method]?.requestBody)?.content ?? {};
    const json = 'application/json' in takes;
    if (options.body !== undefined)
      headers['Content-Type'] = json ? 'application/json' : 'application/x-www-form-urlencoded';
    const res = await fetch(url.startsWith('http') ? url : `${origin}${url}`, {
      method: method.toUpperCase(),
      headers,
      ...(options.body === undefined
        ? {}
        : { body: json ? JSON.stringify(options.body) : formOf(options.body) }),
    });
    const text = await res.text();
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    answers++;
    const where = `${method.toUpperCase()} ${url.replace(origin, '')}`;
    const responses: Json = document.paths[paths[path]]?.[method]?.responses ?? {};
    const response = responses[String(res.status)];
    if (!response) {
      problems.push(
        `${where} answered ${res.status}, which the document does not list (${Object.keys(responses).join(', ')})`,
      );
    } else if (response.content === undefined) {
      if (text !== '') problems.push(`${where} ${res.status}: the document says no body, the answer has one`);
    } else if (!(type in response.content)) {
      problems.push(
        `${where} ${res.status}: answered as ${type}, the document says ${Object.keys(response.content).join(', ')}`,
      );
    } else {
      const pointer = [
        'paths',
        paths[path],
        method,
        'responses',
        String(res.status),
        'content',
        type,
        'schema',
      ]
        .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/');
      const check = ajv.getSchema(`openapi#/${pointer}`)!;
      if (!check(body)) problems.push(`${where} ${res.status}: ${ajv.errorsText(check.errors)}`);
    }
    return { status: res.status, type, text, body, headers: res.headers };
  }

  const base = paths.contacts.replace(/\/v1\/contacts$/, '');
  const ok = (sent: Sent) => sent.status >= 200 && sent.status < 300;

  // A contact and its conversation, made for this check and deleted at its end.
  const created = await send('post', 'contacts', paths.contacts, {
    body: { username: `documented_${Date.now()}`, phone_number: '+14155550123' },
  });
  if (!ok(created))
    return { problems: [...problems, `could not create a contact: ${created.text}`], answers, paged };
  const contact = created.body;
  await send('get', 'contact', `${base}/v1/contacts/${contact.id}`);
  await send('put', 'contact', `${base}/v1/contacts/${contact.id}`, { body: { display_name: 'Documented' } });

  // A message with one attachment, in the fields the document asks for.
  const item = resolve(resolve(document.components.schemas.MessageSend).properties.attachments).items;
  const fields = Object.keys(item.properties);
  const url = item.required.find((key: string) => /url/i.test(key));
  const name = fields.find((key) => /name/i.test(key));
  const attachment = { [url]: 'https://example.com/files/plan.pdf', ...(name ? { [name]: 'plan.pdf' } : {}) };
  const sentMessage = await send('post', 'messages', paths.messages, {
    body: { conversation_id: contact.conversation_id, message: 'Documented?', attachments: [attachment] },
  });
  if (ok(sentMessage)) {
    const id = sentMessage.body.id;
    await send('get', 'message', `${base}/v1/messages/${id}`);
    await send('put', 'message', `${base}/v1/messages/${id}`, {
      body: { reactions: { thumbsup: [contact.username] } },
    });
    await send('put', 'message', `${base}/v1/messages/${id}`, {
      body: { reactions: { heart: [contact.username] } },
    });
    await send(
      'get',
      'messages',
      `${paths.messages}?conversation_id=${encodeURIComponent(contact.conversation_id)}`,
    );
    await send('delete', 'message', `${base}/v1/messages/${id}`);
  } else problems.push(`could not send a message: ${sentMessage.text}`);

  // Two pages of contacts, the second as the document says to ask for it.
  const list = document.paths[paths.contacts].get;
  const parameters: Json[] = list.parameters.map(resolve);
  const cursor = parameters.find((p) => p.name !== 'limit' && p.name !== 'active');
  const first = await send('get', 'contacts', `${paths.contacts}?limit=2`);
  if (ok(first) && first.body?.has_more === true && cursor) {
    const page = resolve(resolve(list.responses[String(first.status)].content[first.type].schema));
    // The key the document says holds the next page (a server's own fields may stand beside it).
    const bodyKey = Object.keys(page.properties).find((key) =>
      /next page/i.test(JSON.stringify(page.properties[key])),
    );
    let next: string | undefined;
    const link = /<([^>]+)>;\s*rel="next"/.exec(first.headers.get('link') ?? '');
    if (link) next = new URL(link[1]!, origin).href;
    else if (bodyKey) {
      const value = first.body[bodyKey];
      const given = value !== null && typeof value === 'object' ? Object.values(value)[0] : value;
      next = /^(https?:|\/)/.test(String(given))
        ? new URL(String(given), origin).href
        : `${paths.contacts}?limit=2&${cursor.name}=${encodeURIComponent(String(given))}`;
    } else if (cursor.schema.type === 'integer')
      // A page number from 1 or an offset from 0: with pages of 2, the second page is 2 either way.
      next = `${paths.contacts}?limit=2&${cursor.name}=2`;
    else next = `${paths.contacts}?limit=2&${cursor.name}=${encodeURIComponent(first.body.data.at(-1).id)}`;
    const second = await send('get', 'contacts', next);
    paged = ok(second);
    const seen = new Set(first.body.data.map((c: Json) => c.id));
    if (ok(second) && second.body.data.some((c: Json) => seen.has(c.id)))
      problems.push(`the second page (${next.replace(origin, '')}) repeats an item of the first`);
  }

  // The document's cases of refusal.
  await send('get', 'contact', `${base}/v1/contacts/documented-nobody`);
  await send('post', 'contacts', paths.contacts, { body: { username: 'no_phone' } });
  await send('get', 'contacts', `${paths.contacts}?limit=0`);
  await send('get', 'contacts', paths.contacts, { token: null });
  await send('get', 'messages', `${paths.messages}?conversation_id=documented-nowhere`);

  await send('delete', 'contact', `${base}/v1/contacts/${contact.id}`);
  return { problems, answers, paged };
}

/** A body as a form with bracket keys: `attachments[0][url]=…`, `reactions[heart][]=ada`. */
function formOf(body: unknown): string {
  const pairs: [string, string][] = [];
  const walk = (value: unknown, key: string) => {
    if (Array.isArray(value))
      value.forEach((item, i) =>
        walk(item, item !== null && typeof item === 'object' ? `${key}[${i}]` : `${key}[]`),
      );
    else if (value !== null && typeof value === 'object')
      for (const [inner, item] of Object.entries(value)) walk(item, key ? `${key}[${inner}]` : inner);
    else pairs.push([key, String(value)]);
  };
  walk(body, '');
  return new URLSearchParams(pairs).toString();
}

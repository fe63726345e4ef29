import { isMessage, type ProxyRequest, type ProxyResponse, type Wrapper } from '../contract-kit/harness';

/**
 * Servers for the recorder's tests, made of the mock and the harness's wrapper: one that fills
 * the document's gaps in every way the mock does not, one that fails after a number of requests,
 * and one that notes the methods it is sent.
 */
type Json = Record<string, unknown>;
type Kind = 'contact' | 'conversation' | 'message' | 'attachment';

/** Three of the seeded world's reaction names, as emoji (the others stay names). */
const EMOJI: Record<string, string> = { thumbs_up: '👍', heart: '❤️', joy: '😂' };

/**
 * The mock's records, shown as a server that chose otherwise everywhere: ids numbered from 1 for
 * each kind (so that a contact, a conversation and a message share ids, and none is text), a
 * contact's times as ISO 8601 text and a message's in milliseconds, phone numbers as `tel:`
 * URIs, no display_name where it is the username, no reactions or attachments fields when
 * there are none, a message's reactions as one object keyed by emoji, attachments in fields of
 * its own (`name`, `url`, `content_type`, `size`, without message_id or created_at), and an
 * `object` field on every record. Only lists are served (the recorder reads nothing else).
 */
export function foreignConventions(): Wrapper {
  const numbers = new Map<Kind, Map<string, number>>();
  const ids = new Map<Kind, Map<number, string>>();
  const out = (kind: Kind, id: unknown): number => {
    const forward = numbers.get(kind) ?? numbers.set(kind, new Map()).get(kind)!;
    let n = forward.get(String(id));
    if (n === undefined) {
      n = forward.size + 1;
      forward.set(String(id), n);
      (ids.get(kind) ?? ids.set(kind, new Map()).get(kind)!).set(n, String(id));
    }
    return n;
  };
  const back = (kind: Kind, text: string) => ids.get(kind)?.get(Number(text)) ?? text;
  const iso = (seconds: unknown) =>
    typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : seconds;
  const ms = (seconds: unknown) => (typeof seconds === 'number' ? seconds * 1000 : seconds);

  const sender = (c: Json): Json => ({
    id: out('contact', c.id),
    username: c.username,
    phone_number: `tel:${String(c.phone_number)}`,
    avatar_url: c.avatar_url,
    last_active_at: iso(c.last_active_at),
    created_at: iso(c.created_at),
  });
  const contact = (c: Json): Json => {
    const { display_name, conversation_id, ...rest } = c;
    return {
      object: 'contact',
      ...sender(rest),
      ...(display_name === c.username ? {} : { display_name }),
      conversation_id: out('conversation', conversation_id),
    };
  };
  const message = (m: Json): Json => {
    const reactions = m.reactions as Json[];
    const attachments = m.attachments as Json[];
    return {
      object: 'message',
      id: out('message', m.id),
      conversation_id: out('conversation', m.conversation_id),
      contact: sender(m.contact as Json),
      message: m.message,
      ...(reactions.length === 0
        ? {}
        : {
            reactions: Object.fromEntries(
              reactions
                .flatMap((r) => Object.entries(r))
                .map(([name, users]) => [EMOJI[name] ?? name, users]),
            ),
          }),
      ...(attachments.length === 0
        ? {}
        : {
            attachments: attachments.map((a) => ({
              id: out('attachment', a.id),
              name: a.filename,
              url: a.file_url,
              content_type: a.file_type,
              size: a.file_size,
            })),
          }),
      read_at: ms(m.read_at),
      created_at: ms(m.created_at),
      updated_at: ms(m.updated_at),
    };
  };
  return {
    request(req: ProxyRequest) {
      const kind: Kind = req.path.startsWith('/v1/contacts') ? 'contact' : 'message';
      for (const key of ['starting_after', 'ending_before']) {
        const value = req.query.get(key);
        if (value !== null) req.query.set(key, back(kind, value));
      }
      const conversation = req.query.get('conversation_id');
      if (conversation !== null) req.query.set('conversation_id', back('conversation', conversation));
    },
    response(_req: ProxyRequest, res: ProxyResponse) {
      if (res.status !== 200) return;
      const page = res.body as { data?: Json[] };
      if (Array.isArray(page.data))
        page.data = page.data.map((item) => (isMessage(item) ? message(item) : contact(item)));
    },
  };
}

/** Answers 500, or (status 0) drops the connection, once `n` requests were served. */
export function failsAfter(n: number, status: 500 | 0 = 500): Wrapper {
  let served = 0;
  return {
    request() {
      served += 1;
      if (served > n) return { status, headers: {}, body: { message: 'the database is gone' } };
    },
  };
}

/** Notes the method of every request it forwards. */
export function methodsOf(methods: string[]): Wrapper {
  return {
    request(req: ProxyRequest) {
      methods.push(req.method);
    },
  };
}

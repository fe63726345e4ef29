import { reactionsOf } from '../lib/model';
import {
  CONTACT,
  MESSAGE,
  nonIntegerTimestamps,
  PAGE,
  problems,
  SENDER,
  SENDER_FORBIDDEN,
} from '../lib/schemas';
import { ERROR_CODES } from '../lib/errors';
import { findRule, rulesOf, type Profile } from '../rules';
import { isObject, redact, type Json, type Reading } from './exchange';
import {
  CONTACT_STABLE,
  idOf,
  itemsOf,
  listKey,
  pageOf,
  sentAttachments,
  sentReactions,
  worldOf,
  type ContactFacts,
  type MessageFacts,
  type SessionState,
  type World,
} from './session';

/**
 * The proxy's judge: which rules one exchange shows broken, given what the session learnt before
 * it. A pure function: it reads the exchange and the session state and changes neither (the proxy
 * calls `learn` afterwards). It judges only what a passive observer can know for certain: the
 * answer's own shape, what the request sent against what the answer shows, and what earlier
 * exchanges of the same token make certain (a record deleted, a field no operation changes).
 */

/** Every rule the judge can find broken; the others need requests of their own (see the report). */
export const JUDGED: readonly string[] = [
  'api.auth-required',
  'api.json-objects',
  'api.integer-timestamps',
  'contacts.fields',
  'contacts.create',
  'contacts.create.requires-username-and-phone-number',
  'contacts.create.display-name-defaults-to-username',
  'contacts.create.last-active-at-null',
  'contacts.create.conversation-id',
  'contacts.retrieve',
  'contacts.list',
  'contacts.update.display-name',
  'contacts.update.only-display-name',
  'contacts.update.keeps-the-rest',
  'contacts.delete',
  'contacts.delete.cascades-conversation',
  'lists.page-fields',
  'lists.default-page-size',
  'lists.has-more',
  'lists.limit',
  'messages.fields',
  'messages.contact-fields',
  'messages.contact-is-sender',
  'messages.reactions-shape',
  'messages.send',
  'messages.send.requires-conversation-id-and-message',
  'messages.send.new-message-defaults',
  'messages.send.attachments',
  'messages.retrieve',
  'messages.list.conversation-filter',
  'messages.list.all-conversations',
  'lists.pages',
  'messages.update.edit-text',
  'messages.update.add-reaction',
  'messages.update.add-attachment',
  'messages.update.keeps-the-rest',
  'messages.delete.permanent',
  'mock.success-codes',
  'mock.error-body',
  'mock.error-statuses',
  'mock.token-isolation',
  'mock.unix-seconds',
  'mock.ids',
  'mock.newest-first',
  'mock.limit-bounds',
  'mock.cursor-walks',
  'mock.active-filter',
  'mock.unknown-conversation',
  'mock.sender-exact',
  'mock.request-bodies',
  'mock.unknown-parameters',
  'mock.field-rules',
  'mock.reactions',
  'mock.attachments',
  'mock.updated-at',
  'mock.cors',
  'mock.routing',
];

export interface Violation {
  rule: string;
  section: string;
  /** What was wrong, in words. */
  message: string;
  exchange: {
    seq: number;
    method: string;
    url: string;
    status: number;
    /** The Authorization header cut to its first characters (`Bearer abcd…`). */
    authorization: string;
    /** The start of the answer's body, as the reports quote it. */
    body: string;
  };
}

export interface Judgement {
  /** The rules this exchange was judged against. */
  checked: string[];
  /** At most one a rule: the first problem, and how many more this answer showed. */
  violations: Violation[];
}

const DEFAULT_PAGE = 10;
const MOCK_DEFAULT_LIMIT = 10;
const ID = /^[A-Za-z0-9]{16}$/;
/** RFC 6750 §2.1: `Bearer` 1*SP b64token, the scheme in any case (RFC 7235 §2.1). */
const TOKEN = /^Bearer +[A-Za-z0-9\-._~+/]+=* *$/i;
const REACTION_NAME = /^[a-z0-9_+-]{1,64}$/;
const PHONE = /^[0-9 +\-().]{1,32}$/;
/** An attachment's fields (C16), sorted as a record's keys are compared. */
const ATTACHMENT_FIELDS = 'created_at,file_size,file_type,file_url,filename,id,message_id';
const ERROR_FIELDS = ['type', 'code', 'message', 'param'];
/** Parameters each operation takes (C13); a POST or PUT reads its query like its body (C12). */
const PARAMETERS: Record<string, readonly string[]> = {
  'GET contacts': ['limit', 'starting_after', 'ending_before', 'active'],
  'GET messages': ['limit', 'starting_after', 'ending_before', 'conversation_id'],
  'POST contacts': ['username', 'phone_number', 'avatar_url', 'display_name'],
  'PUT contact': ['display_name'],
  'POST messages': ['conversation_id', 'message', 'attachments'],
  'PUT message': ['message', 'reactions', 'attachments'],
  'GET contact': [],
  'GET message': [],
  'DELETE contact': [],
  'DELETE message': [],
};
/** A list's first page: no parameter but these (a page further on is asked for with another). */
const FIRST_PAGE_PARAMS = new Set(['limit', 'conversation_id', 'active']);

const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 60 ? `${text.slice(0, 60)}…` : text;
};
const BODY_EXCERPT = 300;
const excerpt = (text: string | undefined) =>
  text === undefined ? '(not kept)' : text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}…` : text;
const where = (at: string, problem: string) => `${at}: ${problem}`;
type Problem = string | false | undefined | null;

const JUDGED_IDS: ReadonlySet<string> = new Set(JUDGED);
const PROFILE_RULES: Record<Profile, ReadonlySet<string>> = {
  documented: new Set(rulesOf('documented').map((rule) => rule.id)),
  mock: new Set(rulesOf('mock').map((rule) => rule.id)),
};

class Verdicts {
  private readonly checked = new Set<string>();
  private readonly found = new Map<string, string[]>();
  private readonly rules: ReadonlySet<string>;

  constructor(
    private readonly reading: Reading,
    profile: Profile,
  ) {
    this.rules = PROFILE_RULES[profile];
  }

  /** The exchange was judged against `rule`; each problem given is a way it broke it. */
  check(rule: string, ...found: Problem[]): void {
    if (!JUDGED_IDS.has(rule)) throw new Error(`the judge names the rule "${rule}", which it does not list`);
    if (!this.rules.has(rule)) return;
    this.checked.add(rule);
    const problems = found.filter((p): p is string => typeof p === 'string' && p !== '');
    if (problems.length > 0) this.found.set(rule, [...(this.found.get(rule) ?? []), ...problems]);
  }

  has(rule: string): boolean {
    return this.rules.has(rule);
  }

  result(): Judgement {
    const { exchange, authorization } = this.reading;
    const violations = [...this.found].map(([rule, problems]) => ({
      rule,
      section: findRule(rule)!.section,
      message:
        problems.length > 1
          ? `${problems[0]} (and ${problems.length - 1} more in this answer)`
          : problems[0]!,
      exchange: {
        seq: exchange.seq,
        method: exchange.method,
        url: exchange.url,
        status: exchange.status,
        authorization: redact(authorization),
        body: excerpt(this.reading.text),
      },
    }));
    return { checked: [...this.checked], violations };
  }
}

export function judge(reading: Reading, state: SessionState, profile: Profile): Judgement {
  const v = new Verdicts(reading, profile);
  const { exchange, route } = reading;
  if (exchange.method === 'OPTIONS') {
    preflight(v, reading);
    return v.result();
  }
  if (v.has('mock.error-body')) conventionsOfAnyAnswer(v, reading);
  if (route.kind === 'outside' || route.kind === 'unknown-api') return v.result();
  const operation = `${exchange.method === 'HEAD' ? 'GET' : exchange.method} ${route.kind}`;
  if (!(operation in PARAMETERS)) return v.result();
  if (reading.authorization === undefined) {
    v.check(
      'api.auth-required',
      reading.ok && `answered ${exchange.status} to a request without Authorization`,
    );
    v.check(
      'mock.error-statuses',
      exchange.status !== 401 && `no Authorization: expected 401, got ${exchange.status}`,
    );
    return v.result();
  }
  if (!TOKEN.test(reading.authorization))
    v.check(
      'mock.token-isolation',
      reading.ok && `answered ${exchange.status} to a malformed Authorization header`,
    );
  if (reading.forced) return v.result();
  const world = worldOf(state, reading.authorization);
  requestConventions(v, reading, operation, state, world);
  if (!reading.ok) return v.result();
  v.check(
    'mock.success-codes',
    exchange.status !== expectedSuccess(exchange.method) &&
      `${exchange.method} answered ${exchange.status}, not ${expectedSuccess(exchange.method)}`,
    exchange.method === 'DELETE' &&
      reading.text !== undefined &&
      reading.text !== '' &&
      'DELETE answered a body',
  );
  if (exchange.method === 'DELETE' || exchange.method === 'HEAD') return v.result();
  if (reading.text !== undefined)
    v.check(
      'api.json-objects',
      !isObject(reading.body) && `the answer is not a JSON object: ${show(reading.text)}`,
    );
  if (!isObject(reading.body)) return v.result();
  const body = reading.body;
  switch (operation) {
    case 'GET contacts':
    case 'GET messages':
      list(v, reading, state, world);
      break;
    case 'GET contact':
      contactRecord(v, state, body, 'the contact');
      v.check(
        'contacts.retrieve',
        idOf(body) !== routeId(reading) && `asked for ${routeId(reading)}, answered ${show(body.id)}`,
      );
      break;
    case 'GET message':
      messageRecord(v, body, 'the message', state, world);
      v.check(
        'messages.retrieve',
        idOf(body) !== routeId(reading) && `asked for ${routeId(reading)}, answered ${show(body.id)}`,
      );
      break;
    case 'POST contacts':
      createdContact(v, reading, body, state);
      break;
    case 'PUT contact':
      contactRecord(v, state, body, 'the contact');
      updatedContact(v, reading, body, world?.contacts.get(routeId(reading)));
      break;
    case 'POST messages':
      messageRecord(v, body, 'the message', state, world);
      sentMessage(v, reading, body);
      break;
    case 'PUT message':
      messageRecord(v, body, 'the message', state, world);
      updatedMessage(v, reading, body, world?.messages.get(routeId(reading)));
      break;
  }
  if (world) views(v, reading, world);
  return v.result();
}

const routeId = (reading: Reading) => ('id' in reading.route ? reading.route.id : '');

function expectedSuccess(method: string): number {
  return method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200;
}

// ---- the answer's records ----

function contactRecord(v: Verdicts, state: SessionState, item: Json, at: string, skip: string[] = []): void {
  v.check('contacts.fields', ...problems(item, CONTACT, skip).map((p) => where(at, p)));
  v.check(
    'api.integer-timestamps',
    ...nonIntegerTimestamps(item, 'contact').map((p) => where(at, `${p} is not an integer`)),
  );
  if (!v.has('mock.ids')) return;
  v.check(
    'mock.ids',
    ...[item.id, item.conversation_id].map((id) => badId(id, at)),
    otherKind(state, item.id, 'contact', at),
  );
  v.check('mock.unix-seconds', ...notSeconds(item, ['created_at', 'last_active_at'], at));
}

function messageRecord(
  v: Verdicts,
  item: Json,
  at: string,
  state: SessionState,
  world: World | undefined,
): void {
  v.check('messages.fields', ...problems(item, MESSAGE).map((p) => where(at, p)));
  v.check(
    'api.integer-timestamps',
    ...nonIntegerTimestamps(item, 'message').map((p) => where(at, `${p} is not an integer`)),
  );
  v.check('messages.reactions-shape', ...reactionsShape(item.reactions).map((p) => where(at, p)));
  const sender = item.contact;
  if (isObject(sender)) {
    v.check(
      'messages.contact-fields',
      ...problems(sender, SENDER).map((p) => where(`${at}'s contact`, p)),
      ...SENDER_FORBIDDEN.filter((field) => field in sender).map((field) =>
        where(`${at}'s contact`, `carries ${field} (${show(sender[field])})`),
      ),
    );
    const owner =
      typeof item.conversation_id === 'string' ? world?.owners.get(item.conversation_id) : undefined;
    if (owner !== undefined)
      v.check(
        'messages.contact-is-sender',
        String(sender.id) !== owner &&
          where(
            at,
            `its contact is ${show(sender.id)}, but conversation ${item.conversation_id as string} belongs to contact ${owner}`,
          ),
      );
  }
  if (!v.has('mock.ids')) return;
  mockMessage(v, item, at, state, world);
}

function reactionsShape(reactions: unknown): string[] {
  if (!Array.isArray(reactions)) return [];
  const found: string[] = [];
  reactions.forEach((element, i) => {
    if (!isObject(element)) found.push(`reactions[${i}] is not an object: ${show(element)}`);
    else
      for (const [name, usernames] of Object.entries(element)) {
        if (!Array.isArray(usernames) || usernames.some((u) => typeof u !== 'string'))
          found.push(`reactions[${i}].${name} is ${show(usernames)}, not a list of usernames`);
      }
  });
  return found;
}

function createdContact(v: Verdicts, reading: Reading, body: Json, state: SessionState): void {
  const params = reading.params;
  // conversation_id on a create answer is its own rule; the other fields are contacts.fields.
  contactRecord(v, state, body, 'the created contact', ['conversation_id']);
  v.check(
    'contacts.create.conversation-id',
    (typeof body.conversation_id !== 'string' || body.conversation_id === '') &&
      `the created contact has conversation_id ${show(body.conversation_id)}`,
  );
  v.check(
    'contacts.create.last-active-at-null',
    body.last_active_at !== null && `the created contact has last_active_at ${show(body.last_active_at)}`,
  );
  if (params === undefined) return;
  v.check(
    'contacts.create.requires-username-and-phone-number',
    ...['username', 'phone_number'].map(
      (key) => !(key in params) && `a create without ${key} answered ${reading.exchange.status}`,
    ),
  );
  if (typeof params.username === 'string') {
    v.check(
      'contacts.create',
      body.username !== params.username &&
        `sent username ${show(params.username)}, the answer has ${show(body.username)}`,
    );
    if (!('display_name' in params))
      v.check(
        'contacts.create.display-name-defaults-to-username',
        body.display_name !== params.username &&
          `created without display_name, the answer has display_name ${show(body.display_name)} (the username is ${show(params.username)})`,
      );
  }
  if (v.has('mock.field-rules')) {
    v.check('mock.unix-seconds', notNow(body.created_at, reading, 'the created contact'));
    contactFieldRules(v, params, body, 'create');
  }
}

function updatedContact(v: Verdicts, reading: Reading, body: Json, known: ContactFacts | undefined): void {
  const params = reading.params;
  if (params === undefined) return;
  const name = params.display_name;
  v.check(
    'contacts.update.display-name',
    idOf(body) !== routeId(reading) && `updated ${routeId(reading)}, answered ${show(body.id)}`,
    typeof name === 'string' &&
      name !== '' &&
      body.display_name !== name &&
      `sent display_name ${show(name)}, the answer has ${show(body.display_name)}`,
  );
  if (known) {
    const applied: Problem[] = [];
    const moved: Problem[] = [];
    for (const field of CONTACT_STABLE) {
      const before = known.stable[field];
      if (before === undefined || !(field in body)) continue;
      if (field in params)
        applied.push(
          body[field] !== before &&
            String(body[field]) === String(params[field]) &&
            `sent ${field} ${show(params[field])}, and the update applied it (it was ${show(before)})`,
        );
      else
        moved.push(
          body[field] !== before &&
            `${field} changed from ${show(before)} to ${show(body[field])}, though only display_name was sent`,
        );
    }
    if (Object.keys(params).some((key) => key !== 'display_name'))
      v.check('contacts.update.only-display-name', ...applied);
    v.check('contacts.update.keeps-the-rest', ...moved);
  }
  if (v.has('mock.field-rules')) contactFieldRules(v, params, body, 'update');
}

function sentMessage(v: Verdicts, reading: Reading, body: Json): void {
  const params = reading.params;
  v.check(
    'messages.send.new-message-defaults',
    body.read_at !== null && `the new message has read_at ${show(body.read_at)}`,
    body.updated_at !== null && `the new message has updated_at ${show(body.updated_at)}`,
    params !== undefined &&
      !('reactions' in params) &&
      Array.isArray(body.reactions) &&
      body.reactions.length > 0 &&
      `the new message has reactions ${show(body.reactions)}`,
    params !== undefined &&
      sentAttachments(params) === 0 &&
      Array.isArray(body.attachments) &&
      body.attachments.length > 0 &&
      `the new message has attachments ${show(body.attachments)}, though none were sent`,
  );
  if (v.has('mock.unix-seconds'))
    v.check('mock.unix-seconds', notNow(body.created_at, reading, 'the new message'));
  if (params === undefined) return;
  v.check(
    'messages.send.requires-conversation-id-and-message',
    ...['conversation_id', 'message'].map(
      (key) => !(key in params) && `a send without ${key} answered ${reading.exchange.status}`,
    ),
  );
  v.check(
    'messages.send',
    typeof params.conversation_id === 'string' &&
      body.conversation_id !== params.conversation_id &&
      `sent into ${show(params.conversation_id)}, the answer is in ${show(body.conversation_id)}`,
    typeof params.message === 'string' &&
      body.message !== params.message &&
      `sent the text ${show(params.message)}, the answer has ${show(body.message)}`,
  );
  const attachments = sentAttachments(params);
  if (attachments > 0)
    v.check(
      'messages.send.attachments',
      (!Array.isArray(body.attachments) || body.attachments.length !== attachments) &&
        `sent ${attachments} attachment(s), the answer has ${Array.isArray(body.attachments) ? body.attachments.length : show(body.attachments)}`,
    );
  if (v.has('mock.field-rules') && typeof params.message === 'string')
    v.check(
      'mock.field-rules',
      (params.message.length < 1 || params.message.length > 4000) &&
        `a message of ${params.message.length} characters was accepted (1–4000)`,
    );
}

function updatedMessage(v: Verdicts, reading: Reading, body: Json, known: MessageFacts | undefined): void {
  const params = reading.params;
  if (params === undefined) return;
  const shown = reactionsOf(body.reactions);
  const sent = sentReactions(params);
  const added: Problem[] = [];
  const kept: Problem[] = [];
  if (typeof params.message === 'string')
    v.check(
      'messages.update.edit-text',
      body.message !== params.message &&
        `sent the text ${show(params.message)}, the answer has ${show(body.message)}`,
    );
  else if (known && known.text !== undefined)
    kept.push(
      body.message !== known.text &&
        `the text changed from ${show(known.text)} to ${show(body.message)}, though none was sent`,
    );
  if (shown) {
    for (const [name, usernames] of sent)
      for (const username of usernames)
        added.push(
          !shown.get(name)?.has(username) &&
            `sent the reaction ${name} by ${username}; the answer does not show it`,
        );
    for (const [name, usernames] of known?.reactions ?? [])
      for (const username of usernames) {
        if (shown.get(name)?.has(username)) continue;
        (sent.has(name) ? added : kept).push(`the reaction ${name} by ${username} is gone after the update`);
      }
  }
  if (sent.size > 0) v.check('messages.update.add-reaction', ...added);
  const attachments = sentAttachments(params);
  const count = Array.isArray(body.attachments) ? body.attachments.length : undefined;
  if (attachments > 0 && count !== undefined)
    v.check(
      'messages.update.add-attachment',
      count < (known?.attachments ?? 0) + attachments &&
        `sent ${attachments} attachment(s) to a message that had ${known?.attachments ?? 'at least 0'}; the answer has ${count}`,
    );
  else if (known && count !== undefined)
    kept.push(
      count < known.attachments &&
        `the message had ${known.attachments} attachment(s), the answer to an update without any has ${count}`,
    );
  if (known) {
    kept.push(
      body.conversation_id !== known.conversationId &&
        `conversation_id changed from ${show(known.conversationId)} to ${show(body.conversation_id)}`,
      body.created_at !== known.createdAt &&
        `created_at changed from ${show(known.createdAt)} to ${show(body.created_at)}`,
      isObject(body.contact) &&
        known.senderId !== undefined &&
        body.contact.id !== known.senderId &&
        `the sender changed from ${show(known.senderId)} to ${show(body.contact.id)}`,
    );
    v.check('messages.update.keeps-the-rest', ...kept);
  }
  if (v.has('mock.updated-at'))
    v.check(
      'mock.updated-at',
      notNow(body.updated_at, reading, 'updated_at of the updated message'),
      typeof body.updated_at === 'number' &&
        typeof body.created_at === 'number' &&
        body.updated_at < body.created_at &&
        `updated_at ${body.updated_at} is before created_at ${body.created_at}`,
    );
}

// ---- pages ----

function list(v: Verdicts, reading: Reading, state: SessionState, world: World | undefined): void {
  const { query } = reading;
  const kind = reading.route.kind === 'contacts' ? 'contacts' : 'messages';
  v.check('lists.page-fields', ...problems(reading.body, PAGE));
  const page = pageOf(reading);
  if (!page) return;
  const body = reading.body as Json;
  (body.data as unknown[]).forEach((item, i) => {
    const at = `data[${i}]`;
    if (!isObject(item))
      v.check(
        kind === 'contacts' ? 'contacts.fields' : 'messages.fields',
        `${at} is ${show(item)}, not an object`,
      );
    else if (kind === 'contacts') contactRecord(v, state, item, at);
    else messageRecord(v, item, at, state, world);
  });
  const limit = query.get('limit');
  if (limit === null)
    v.check(
      'lists.default-page-size',
      page.data.length > DEFAULT_PAGE &&
        `without limit, the page holds ${page.data.length} items, more than ${DEFAULT_PAGE}`,
    );
  else if (/^[1-9][0-9]*$/.test(limit))
    v.check(
      'lists.limit',
      page.data.length > Number(limit) && `limit=${limit}, and the page holds ${page.data.length} items`,
    );
  const conversation = query.get('conversation_id');
  if (kind === 'messages' && conversation !== null) {
    const stray = page.data.filter((m) => m.conversation_id !== conversation);
    v.check(
      'messages.list.conversation-filter',
      stray.length > 0 &&
        `listed by conversation_id=${conversation}, the page holds ${stray.length} message(s) of other conversations (e.g. ${show(stray[0]!.conversation_id)})`,
    );
  }
  if (world) hasMore(v, reading, page, world);
  if (v.has('mock.newest-first')) mockPage(v, reading, page);
}

function hasMore(
  v: Verdicts,
  reading: Reading,
  page: { has_more: boolean; data: Json[] },
  world: World,
): void {
  const started = reading.exchange.startedAt;
  const names = [...reading.query.keys()];
  const conversation = reading.query.get('conversation_id');
  const limit = reading.query.get('limit');
  // A first page that says it holds the whole list must show every record seen alive before it:
  // a full page that leaves some out has has_more wrong; a shorter one leaves them out of the list.
  if (!page.has_more && names.every((n) => FIRST_PAGE_PARAMS.has(n)) && !reading.query.has('active')) {
    const listed = new Set(page.data.map(idOf));
    const alive: string[] =
      reading.route.kind === 'contacts'
        ? [...world.contacts].filter(([, c]) => c.seenAt <= started).map(([id]) => id)
        : [...world.messages]
            .filter(
              ([, m]) => m.seenAt <= started && (conversation === null || m.conversationId === conversation),
            )
            .map(([id]) => id);
    const missing = alive.filter((id) => !listed.has(id));
    const full =
      page.data.length >= (limit !== null && /^[0-9]+$/.test(limit) ? Number(limit) : DEFAULT_PAGE);
    const rule = full
      ? 'lists.has-more'
      : reading.route.kind === 'contacts'
        ? 'contacts.list'
        : conversation === null
          ? 'messages.list.all-conversations'
          : 'messages.list.conversation-filter';
    v.check(
      rule,
      missing.length > 0 &&
        `has_more is false on the first page${full ? '' : ` of ${page.data.length} items`}, but ${missing.length} ${reading.route.kind} seen earlier in this session are not on it (e.g. ${missing[0]})`,
    );
  }
  // The page after a page that said has_more=true (asked for with its last id): not empty, and
  // none of the items of the page before (unless it is that same page: the parameter was ignored).
  const lastDelete = Math.max(0, ...world.goneContacts.values(), ...world.goneMessages.values());
  for (const [name, value] of reading.query) {
    if (FIRST_PAGE_PARAMS.has(name) || /before|prev|back/i.test(name)) continue;
    const open = world.openPages.get(`${listKey(reading)}|${value}`);
    if (open === undefined || open.at > started) continue;
    const ids = page.data.map(idOf);
    const again = ids.filter((id) => open.ids.includes(id));
    if (ids.join('\n') !== open.ids.join('\n'))
      v.check(
        'lists.pages',
        again.length > 0 &&
          `the page after the one ending with ${value} (${name}=${value}) shows ${again.length} of its items again (e.g. ${again[0]})`,
      );
    if (lastDelete > open.at) continue;
    v.check(
      'lists.has-more',
      page.data.length === 0 &&
        `the page ending with ${value} said has_more=true, but the page after it (${name}=${value}) is empty`,
    );
  }
}

// ---- what earlier exchanges of this token make certain ----

function views(v: Verdicts, reading: Reading, world: World): void {
  const started = reading.exchange.startedAt;
  const { contacts, messages } = itemsOf(reading);
  const isList = reading.route.kind === 'contacts' || reading.route.kind === 'messages';
  const viewRule = (single: string, listed: string) => (isList ? listed : single);
  const deleted = (gone: Map<string, number>, id: string) => {
    const at = gone.get(id);
    return at !== undefined && at <= started;
  };
  const again = (rule: string, kind: string, items: Json[], gone: Map<string, number>) => {
    if (gone.size > 0)
      v.check(
        rule,
        ...items.map(
          (item) =>
            deleted(gone, idOf(item)) &&
            `${kind} ${idOf(item)} was deleted, and is ${isList ? 'listed' : 'answered'} again`,
        ),
      );
  };
  again('contacts.delete', 'contact', contacts, world.goneContacts);
  again('messages.delete.permanent', 'message', messages, world.goneMessages);
  if (world.goneConversations.size > 0)
    v.check(
      'contacts.delete.cascades-conversation',
      ...messages.map(
        (m) =>
          typeof m.conversation_id === 'string' &&
          deleted(world.goneConversations, m.conversation_id) &&
          !deleted(world.goneMessages, idOf(m)) &&
          `message ${idOf(m)} is in conversation ${m.conversation_id}, whose contact was deleted`,
      ),
    );
  for (const item of contacts) {
    const known = world.contacts.get(idOf(item));
    if (!known || reading.exchange.method === 'PUT') continue;
    const moved = CONTACT_STABLE.filter(
      (field) => known.stable[field] !== undefined && field in item && item[field] !== known.stable[field],
    ).map(
      (field) => `contact ${idOf(item)}: ${field} was ${show(known.stable[field])}, now ${show(item[field])}`,
    );
    if (moved.length > 0)
      v.check(
        known.renamedAt !== undefined
          ? 'contacts.update.keeps-the-rest'
          : viewRule('contacts.retrieve', 'contacts.list'),
        ...moved,
      );
    if (known.renamedAt !== undefined && known.renamedAt <= started)
      v.check(
        'contacts.update.display-name',
        item.display_name !== known.displayName &&
          known.formerNames.includes(item.display_name) &&
          `contact ${idOf(item)} shows its former display_name ${show(item.display_name)}, not ${show(known.displayName)}`,
      );
  }
  for (const item of messages) {
    const known = world.messages.get(idOf(item));
    if (!known || reading.exchange.method === 'PUT' || known.learntAt > started) continue;
    messageView(v, item, known, started, isList);
  }
}

function messageView(v: Verdicts, item: Json, known: MessageFacts, started: number, isList: boolean): void {
  const id = idOf(item);
  const updated = known.updatedAt !== undefined && known.updatedAt <= started;
  const moved = [
    item.conversation_id !== known.conversationId &&
      `conversation_id was ${show(known.conversationId)}, now ${show(item.conversation_id)}`,
    item.created_at !== known.createdAt &&
      `created_at was ${show(known.createdAt)}, now ${show(item.created_at)}`,
    isObject(item.contact) &&
      known.senderId !== undefined &&
      item.contact.id !== known.senderId &&
      `the sender was ${show(known.senderId)}, now ${show(item.contact.id)}`,
  ]
    .filter((p): p is string => typeof p === 'string')
    .map((p) => `message ${id}: ${p}`);
  if (moved.length > 0 && (updated || !isList))
    v.check(updated ? 'messages.update.keeps-the-rest' : 'messages.retrieve', ...moved);
  if (known.editedAt !== undefined && known.editedAt <= started)
    v.check(
      'messages.update.edit-text',
      item.message !== known.text &&
        known.formerTexts.includes(item.message) &&
        `message ${id} shows its former text ${show(item.message)}, not ${show(known.text)}`,
    );
  if (!updated) return;
  const shown = reactionsOf(item.reactions);
  if (shown) {
    const lost = [...known.reactions].flatMap(([name, usernames]) =>
      [...usernames]
        .filter((u) => !shown.get(name)?.has(u))
        .map((u) => `message ${id}: the reaction ${name} by ${u} is gone`),
    );
    v.check(
      known.lastUpdate?.reaction ? 'messages.update.add-reaction' : 'messages.update.keeps-the-rest',
      ...lost,
    );
  }
  if (Array.isArray(item.attachments))
    v.check(
      known.lastUpdate?.attachment ? 'messages.update.add-attachment' : 'messages.update.keeps-the-rest',
      item.attachments.length < known.attachments &&
        `message ${id} had ${known.attachments} attachment(s), and shows ${item.attachments.length}`,
    );
}

// ---- the mock's conventions (mock profile only) ----

function badId(id: unknown, at: string): Problem {
  return (
    id !== undefined &&
    (typeof id !== 'string' || !ID.test(id)) &&
    where(at, `the id ${show(id)} is not 16 characters of [A-Za-z0-9]`)
  );
}

/** Ids of contacts, conversations and messages never collide (C6). */
function otherKind(state: SessionState, id: unknown, kind: 'contact' | 'message', at: string): Problem {
  const seen = state.kinds.get(String(id));
  return (
    seen !== undefined &&
    seen !== kind &&
    where(at, `the ${kind} id ${String(id)} is also the id of a ${seen}`)
  );
}

function notSeconds(item: Json, fields: string[], at: string): Problem[] {
  return fields.map(
    (field) =>
      typeof item[field] === 'number' &&
      ((item[field] as number) < 0 || (item[field] as number) >= 1e11) &&
      where(at, `${field} ${item[field] as number} is not in Unix seconds`),
  );
}

function notNow(value: unknown, reading: Reading, what: string): Problem {
  const now = reading.exchange.finishedAt / 1000;
  return (
    (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value - now) > 300) &&
    `${what}: ${show(value)} is not the current Unix second (about ${Math.round(now)})`
  );
}

function mockMessage(
  v: Verdicts,
  item: Json,
  at: string,
  state: SessionState,
  world: World | undefined,
): void {
  const sender = isObject(item.contact) ? item.contact : undefined;
  const attachments = Array.isArray(item.attachments) ? item.attachments : [];
  v.check(
    'mock.ids',
    ...[item.id, item.conversation_id, sender?.id].map((id) => badId(id, at)),
    ...attachments.flatMap((a) => (isObject(a) ? [badId(a.id, `${at}'s attachment`)] : [])),
    otherKind(state, item.id, 'message', at),
  );
  v.check('mock.unix-seconds', ...notSeconds(item, ['created_at', 'read_at', 'updated_at'], at));
  if (sender) {
    const extra = Object.keys(sender).filter((key) => !(key in SENDER));
    const owner =
      typeof item.conversation_id === 'string' ? world?.owners.get(item.conversation_id) : undefined;
    const facts = owner === undefined ? undefined : world?.contacts.get(owner);
    v.check(
      'mock.sender-exact',
      extra.length > 0 && where(at, `its contact also carries ${extra.join(', ')}`),
      ...(facts
        ? (['username', 'phone_number', 'avatar_url', 'created_at'] as const).map(
            (field) =>
              facts.stable[field] !== undefined &&
              sender[field] !== facts.stable[field] &&
              where(
                at,
                `its contact's ${field} is ${show(sender[field])}, the contact's is ${show(facts.stable[field])}`,
              ),
          )
        : []),
    );
  }
  if (Array.isArray(item.reactions)) {
    const names = item.reactions.filter(isObject).flatMap((r) => Object.keys(r));
    v.check(
      'mock.reactions',
      ...item.reactions.map(
        (r, i) =>
          isObject(r) &&
          Object.keys(r).length !== 1 &&
          where(at, `reactions[${i}] holds ${Object.keys(r).length} names, not one`),
      ),
      names.length !== new Set(names).size &&
        where(at, `a reaction name appears twice in ${show(item.reactions)}`),
      ...names.map(
        (name) =>
          !REACTION_NAME.test(name) &&
          where(at, `the reaction name ${show(name)} breaks ^[a-z0-9_+-]{1,64}$`),
      ),
      ...item.reactions
        .filter(isObject)
        .flatMap((r) => Object.entries(r))
        .map(
          ([name, us]) =>
            Array.isArray(us) &&
            new Set(us).size !== us.length &&
            where(at, `a username appears twice under ${name}`),
        ),
    );
  }
  v.check(
    'mock.attachments',
    ...attachments.map((a, i) => {
      if (!isObject(a)) return where(at, `attachments[${i}] is not an object`);
      const keys = Object.keys(a).sort().join(',');
      if (keys !== ATTACHMENT_FIELDS) return where(at, `attachments[${i}] has the fields ${keys}`);
      if (a.message_id !== item.id)
        return where(at, `attachments[${i}].message_id is ${show(a.message_id)}, not the message's id`);
      if (typeof a.file_type !== 'string')
        return where(at, `attachments[${i}].file_type is ${show(a.file_type)}`);
      return (
        a.file_size !== null &&
        !(Number.isInteger(a.file_size) && (a.file_size as number) >= 0) &&
        where(at, `attachments[${i}].file_size is ${show(a.file_size)}`)
      );
    }),
  );
}

function mockPage(v: Verdicts, reading: Reading, page: { has_more: boolean; data: Json[] }): void {
  const { query } = reading;
  const times = page.data.map((item) => item.created_at);
  const unordered = times.findIndex(
    (t, i) =>
      i > 0 && typeof t === 'number' && typeof times[i - 1] === 'number' && t > (times[i - 1] as number),
  );
  v.check(
    'mock.newest-first',
    unordered > 0 &&
      `data[${unordered}] (created_at ${show(times[unordered])}) is newer than the item before it (${show(times[unordered - 1])})`,
  );
  const limit = query.get('limit');
  const size = limit === null ? MOCK_DEFAULT_LIMIT : Number(limit);
  v.check(
    'mock.limit-bounds',
    limit !== null && !/^([1-9][0-9]?|100)$/.test(limit) && `limit=${limit} was accepted (1–100)`,
    page.has_more &&
      page.data.length !== size &&
      `has_more is true, and the page holds ${page.data.length} items, not ${size}`,
  );
  const after = query.get('starting_after');
  const before = query.get('ending_before');
  if (after !== null || before !== null)
    v.check(
      'mock.cursor-walks',
      after !== null && before !== null && 'starting_after and ending_before together were accepted',
      ...[after, before].map(
        (cursor) =>
          cursor !== null &&
          page.data.some((item) => idOf(item) === cursor) &&
          `the page holds its own cursor ${cursor}`,
      ),
    );
  const active = query.get('active');
  if (reading.route.kind === 'contacts' && active !== null)
    v.check(
      'mock.active-filter',
      active !== 'true' && active !== 'false' && `active=${active} was accepted`,
      active === 'true' &&
        page.data.some((c) => c.last_active_at === null) &&
        'active=true lists a contact never active',
      active === 'false' &&
        page.data.some((c) => c.last_active_at !== null) &&
        'active=false lists a contact that was active',
    );
}

function contactFieldRules(v: Verdicts, params: Json, body: Json, operation: 'create' | 'update'): void {
  const text = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : undefined);
  const username = text('username');
  const phone = text('phone_number');
  const avatar = text('avatar_url');
  const name = text('display_name');
  v.check(
    'mock.field-rules',
    operation === 'create' &&
      username !== undefined &&
      (username.length < 1 || username.length > 64) &&
      `a username of ${username.length} characters was accepted`,
    operation === 'create' &&
      phone !== undefined &&
      !PHONE.test(phone) &&
      `the phone_number ${show(phone)} was accepted`,
    operation === 'create' &&
      avatar !== undefined &&
      avatar !== '' &&
      !/^https?:\/\/\S+$/i.test(avatar) &&
      `the avatar_url ${show(avatar)} was accepted`,
    name !== undefined && name.length > 64 && `a display_name of ${name.length} characters was accepted`,
    operation === 'create' &&
      phone !== undefined &&
      body.phone_number !== phone &&
      `phone_number sent as ${show(phone)} is stored as ${show(body.phone_number)}`,
    operation === 'create' &&
      avatar &&
      body.avatar_url !== avatar &&
      `avatar_url sent as ${show(avatar)} is stored as ${show(body.avatar_url)}`,
    operation === 'create' &&
      name === '' &&
      body.display_name !== username &&
      `an empty display_name on create gave ${show(body.display_name)}, not the username`,
    operation === 'update' &&
      name === '' &&
      body.display_name !== null &&
      `an empty display_name on update gave ${show(body.display_name)}, not null`,
  );
}

/** What the mock's conventions ask of a request, whether it succeeded or not. */
function requestConventions(
  v: Verdicts,
  reading: Reading,
  operation: string,
  state: SessionState,
  world: World | undefined,
): void {
  const { exchange, route } = reading;
  const started = exchange.startedAt;
  const conversation =
    route.kind === 'messages'
      ? exchange.method === 'POST'
        ? reading.params?.conversation_id
        : reading.query.get('conversation_id')
      : undefined;
  if (typeof conversation === 'string' && world) {
    const gone = world.goneConversations.get(conversation);
    if (gone !== undefined && gone <= started)
      v.check(
        'mock.unknown-conversation',
        exchange.status !== 404 &&
          `conversation ${conversation} was deleted with its contact; expected 404, got ${exchange.status}`,
      );
  }
  if (!reading.ok || !v.has('mock.unknown-parameters')) return;
  const allowed = PARAMETERS[operation]!;
  const given = [
    ...reading.query.keys(),
    ...(exchange.method === 'POST' || exchange.method === 'PUT' ? Object.keys(reading.params ?? {}) : []),
  ];
  const unknown = [...new Set(given.filter((key) => !allowed.includes(key)))];
  v.check(
    'mock.unknown-parameters',
    unknown.length > 0 &&
      `accepted the parameter(s) ${unknown.join(', ')} (this operation takes ${allowed.join(', ') || 'none'})`,
  );
  if ('id' in route) {
    const creator = state.creators.get(route.id);
    v.check(
      'mock.token-isolation',
      creator !== undefined &&
        creator !== reading.authorization &&
        `${route.id} was created with another token, and this one reached it (${exchange.status})`,
    );
  }
}

/** The mock's conventions on any answer, on any path: error bodies, statuses, routing, CORS. */
function conventionsOfAnyAnswer(v: Verdicts, reading: Reading): void {
  const { exchange, route } = reading;
  const status = exchange.status;
  if (status >= 400 && exchange.method !== 'HEAD' && reading.text !== undefined) {
    const body = reading.body;
    const extra = isObject(body) ? Object.keys(body).filter((key) => !ERROR_FIELDS.includes(key)) : [];
    v.check(
      'mock.error-body',
      !isObject(body)
        ? `the ${status} answer is not a JSON object: ${show(reading.text)}`
        : body.type !== (status >= 500 ? 'api_error' : 'invalid_request')
          ? `the ${status} answer has type ${show(body.type)}`
          : !ERROR_CODES.has(String(body.code))
            ? `the ${status} answer has the code ${show(body.code)}, which the conventions do not list`
            : typeof body.message !== 'string' || body.message === ''
              ? `the ${status} answer has no message`
              : extra.length > 0
                ? `the ${status} answer is not flat: it also has ${extra.join(', ')}`
                : /\n\s+at /.test(reading.text) && `the ${status} answer holds a stack trace`,
    );
  }
  if (status === 401 || status === 405)
    v.check(
      'mock.error-statuses',
      status === 401 &&
        !/^Bearer\b/i.test(exchange.responseHeaders['www-authenticate'] ?? '') &&
        'a 401 without WWW-Authenticate: Bearer',
      status === 405 && !exchange.responseHeaders.allow && 'a 405 without Allow',
    );
  const type = (exchange.requestHeaders['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (['application/x-www-form-urlencoded', 'application/json', 'multipart/form-data'].includes(type))
    v.check('mock.request-bodies', status === 415 && `a ${type} body was refused with 415`);
  if (exchange.requestHeaders.origin !== undefined)
    v.check(
      'mock.cors',
      !exchange.responseHeaders['access-control-allow-origin'] &&
        'an answer to a request with Origin has no Access-Control-Allow-Origin',
    );
  if (route.kind === 'outside' && !reading.path.startsWith('/__mock/') && reading.path !== '/openapi.json') {
    const code = isObject(reading.body) ? reading.body.code : undefined;
    v.check(
      'mock.routing',
      (status !== 404 ||
        (reading.text !== undefined && exchange.method !== 'HEAD' && code !== 'route_not_found')) &&
        `${reading.path} is outside /v1, and was answered ${status}${code !== undefined ? ` ${show(code)}` : ''}, not 404 route_not_found`,
    );
  }
}

function preflight(v: Verdicts, reading: Reading): void {
  const { exchange } = reading;
  if (exchange.requestHeaders['access-control-request-method'] === undefined) return;
  const allowed = (exchange.responseHeaders['access-control-allow-headers'] ?? '')
    .toLowerCase()
    .split(/\s*,\s*/);
  v.check(
    'mock.cors',
    exchange.status !== 204 && `the preflight was answered ${exchange.status}, not 204`,
    !exchange.responseHeaders['access-control-allow-origin'] &&
      'the preflight has no Access-Control-Allow-Origin',
    ...['authorization', 'content-type'].map(
      (name) =>
        !allowed.includes(name) && allowed[0] !== '*' && `the preflight does not allow the ${name} header`,
    ),
  );
}

import { withRetries } from '../../common/transient';
import { ID_KINDS, type IdFormat, type IdKind } from '../../common/server-profile';
import { isObject } from '../http/exchange';
import { joinedFormat } from '../profile/build';
import { idFormatOf } from '../profile/shapes';
import { CONTACT_FIELDS, MESSAGE_FIELDS } from '../rules/resources';

/**
 * `messaging-contract twin compare`: a client's session run on a server and on its twin, each answer
 * of one beside the same answer of the other, compared strictly by form (the values differ: other
 * worlds, other ids, other clocks): the status, the content type, every key at every depth and the
 * kind of every value, the form of ids (alphabet, length, prefix), the digits of timestamps, and
 * the order a list shows the session's own records in.
 */

interface Answer {
  status: number;
  contentType: string;
  body: unknown;
  text: string;
}

/** One step of the session as one side answered it, or why it was not sent there. */
export interface Step {
  name: string;
  request: string;
  answer?: Answer;
  skipped?: string;
}

export interface Side {
  baseUrl: string;
  token: string;
}

/** Sends one request; transient answers are waited out and sent again as the kit does (not a POST's). */
async function call(
  side: Side,
  method: string,
  path: string,
  form?: [string, string][] | { json: unknown },
  token = true,
): Promise<Answer> {
  const url = `${side.baseUrl.replace(/\/+$/, '')}${path}`;
  return withRetries(method, url, {
    once: async () => {
      const json = form !== undefined && !Array.isArray(form);
      const response = await fetch(url, {
        method,
        headers: {
          ...(token ? { Authorization: `Bearer ${side.token}` } : {}),
          ...(form
            ? { 'Content-Type': json ? 'application/json' : 'application/x-www-form-urlencoded' }
            : {}),
        },
        ...(form ? { body: json ? JSON.stringify(form.json) : new URLSearchParams(form).toString() } : {}),
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const headers = Object.fromEntries(response.headers);
      return {
        status: response.status,
        headers,
        contentType: (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase(),
        body,
        text,
      };
    },
    noAnswer: (error) =>
      error instanceof TypeError ? String((error as Error).cause ?? error.message) : undefined,
    giveUp: (line) => new Error(line),
  });
}

const idOf = (answer: Answer | undefined): string | undefined =>
  isObject(answer?.body) && (typeof answer.body.id === 'string' || typeof answer.body.id === 'number')
    ? String(answer.body.id)
    : undefined;
const fieldOf = (answer: Answer | undefined, field: string): string | undefined =>
  isObject(answer?.body) && answer.body[field] !== undefined && answer.body[field] !== null
    ? String(answer.body[field])
    : undefined;

/**
 * The session: every operation, successes and refusals, as a client would send them, each step
 * given what the earlier ones answered. What it made is deleted at the end (not compared).
 */
export async function runSession(side: Side, stamp: string): Promise<Step[]> {
  const steps: Step[] = [];
  const step = async (
    name: string,
    method: string,
    path: string | undefined,
    form?: [string, string][] | { json: unknown },
    token = true,
  ): Promise<Answer | undefined> => {
    if (path === undefined) {
      steps.push({ name, request: method, skipped: 'an earlier step made nothing to name' });
      return undefined;
    }
    const request = `${method} ${path
      .replace(/\/v1\/(contacts|messages)\/[^/?]+/, '/v1/$1/{id}')
      .replace(/conversation_id=[^&]*/, 'conversation_id={id}')}`;
    try {
      const answer = await call(side, method, path, form, token);
      steps.push({ name, request, answer });
      return answer;
    } catch (error) {
      steps.push({ name, request, skipped: (error as Error).message });
      return undefined;
    }
  };
  const a = await step('create a contact', 'POST', '/v1/contacts', [
    ['username', `cmp_a_${stamp}`],
    ['phone_number', '+14155550101'],
    ['display_name', 'Ada Compare'],
  ]);
  const b = await step('create a contact without display_name', 'POST', '/v1/contacts', [
    ['username', `cmp_b_${stamp}`],
    ['phone_number', '+14155550102'],
  ]);
  await step('a create without phone_number, refused', 'POST', '/v1/contacts', [
    ['username', `cmp_c_${stamp}`],
  ]);
  // A phone number as people write it: a server that takes only `+` and digits refuses it.
  await step('a phone number written with spaces', 'POST', '/v1/contacts', [
    ['username', `cmp_p_${stamp}`],
    ['phone_number', '+1 415 555 0104'],
  ]);
  // A server that reads forms only refuses it (415); one that reads JSON too makes the contact.
  const j = await step('a create sent as JSON', 'POST', '/v1/contacts', {
    json: { username: `cmp_j_${stamp}`, phone_number: '+14155550103' },
  });
  const aId = idOf(a);
  const bId = idOf(b);
  const contactPath = (id: string | undefined) => (id === undefined ? undefined : `/v1/contacts/${id}`);
  await step('retrieve the contact', 'GET', contactPath(aId));
  await step('rename the contact', 'PUT', contactPath(aId), [['display_name', 'Ada Renamed']]);
  const conversation = fieldOf(a, 'conversation_id');
  const m1 = await step(
    'send a message',
    'POST',
    conversation === undefined ? undefined : '/v1/messages',
    conversation === undefined
      ? undefined
      : [
          ['conversation_id', conversation],
          ['message', 'Hello from the session'],
        ],
  );
  await step(
    'send a message with an attachment',
    'POST',
    conversation === undefined ? undefined : '/v1/messages',
    conversation === undefined
      ? undefined
      : [
          ['conversation_id', conversation],
          ['message', 'With a file'],
          ['attachments[0][filename]', 'report.pdf'],
          ['attachments[0][file_url]', 'https://example.com/files/report.pdf'],
          ['attachments[0][file_type]', 'application/pdf'],
        ],
  );
  const m1Id = idOf(m1);
  const messagePath = (id: string | undefined) => (id === undefined ? undefined : `/v1/messages/${id}`);
  await step('react to a message', 'PUT', messagePath(m1Id), [['reactions[heart][]', `cmp_a_${stamp}`]]);
  await step(
    "list the contact's conversation",
    'GET',
    conversation === undefined
      ? undefined
      : `/v1/messages?conversation_id=${encodeURIComponent(conversation)}`,
  );
  await step('list contacts, one a page', 'GET', '/v1/contacts?limit=1');
  await step('a list with a bad limit, refused', 'GET', '/v1/contacts?limit=abc');
  await step('delete a message', 'DELETE', messagePath(m1Id));
  await step('read the deleted message back', 'GET', messagePath(m1Id));
  await step('delete a contact', 'DELETE', contactPath(bId));
  await step('read the deleted contact back', 'GET', contactPath(bId));
  await step(
    'retrieve an id never made',
    'GET',
    contactPath(aId === undefined ? 'zz0unknown0id' : unknownLike(aId)),
  );
  await step('list without a token, refused', 'GET', '/v1/contacts', undefined, false);
  // What the session made goes (the second message with its contact's conversation).
  for (const id of [aId, bId, idOf(j)])
    if (id !== undefined) await call(side, 'DELETE', `/v1/contacts/${id}`).catch(() => {});
  return steps;
}

/** An id of the same form as `id` that names nothing: its digits and letters turned around. */
function unknownLike(id: string): string {
  const prefix = /^[a-z]+_/.exec(id)?.[0] ?? '';
  const rest = id.slice(prefix.length);
  return (
    prefix +
    [...rest]
      .map((c) =>
        /[0-8]/.test(c)
          ? String(Number(c) + 1)
          : /[a-e]/.test(c)
            ? String.fromCharCode(c.charCodeAt(0) + 1)
            : c,
      )
      .join('')
  );
}

/** The kind of a value, as the comparison reads it. */
const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/**
 * The form of each kind of id a side's session showed, inferred as the kit infers a profile's
 * (profile/build.ts): one id tells little (a hex id may be all digits, a length may vary), all of
 * them tell the alphabet, the prefix and the range of lengths.
 */
function idForms(steps: Step[]): Record<IdKind, (IdFormat & { distinct: number }) | undefined> {
  const seen: Record<IdKind, { value: IdFormat; seen: string }[]> = {
    contact: [],
    message: [],
    conversation: [],
  };
  const distinct: Record<IdKind, Set<string>> = {
    contact: new Set(),
    message: new Set(),
    conversation: new Set(),
  };
  const note = (kind: IdKind, id: unknown) => {
    const format = idFormatOf(id);
    if (!format) return;
    seen[kind].push({ value: format, seen: '' });
    distinct[kind].add(String(id));
  };
  const record = (item: unknown, kind: 'contact' | 'message') => {
    if (!isObject(item)) return;
    note(kind, item.id);
    note('conversation', item.conversation_id);
    if (kind === 'message' && isObject(item.contact)) note('contact', item.contact.id);
  };
  for (const step of steps) {
    const body = step.answer?.body;
    if (!step.answer || step.answer.status >= 300 || !isObject(body)) continue;
    const kind = step.request.includes('/v1/messages') ? 'message' : 'contact';
    if (Array.isArray(body.data)) for (const item of body.data) record(item, kind);
    else if ('id' in body) record(body, kind);
  }
  const forms = {} as Record<IdKind, (IdFormat & { distinct: number }) | undefined>;
  for (const kind of ID_KINDS) {
    const joined = seen[kind].length > 0 ? joinedFormat(seen[kind], `${kind} id`) : undefined;
    forms[kind] =
      joined && 'value' in joined ? { ...joined.value, distinct: distinct[kind].size } : undefined;
  }
  return forms;
}

const lengthsOf = (f: IdFormat): [number, number] | undefined =>
  f.length !== undefined
    ? [f.length, f.length]
    : f.minLength !== undefined
      ? [f.minLength, f.maxLength!]
      : undefined;

/** The ids' forms of the two sides apart: alphabet, prefix and JSON type; a fixed length against another. */
function idDifferences(server: Step[], twin: Step[]): string[] {
  const [a, b] = [idForms(server), idForms(twin)];
  const out: string[] = [];
  const shown = (f: IdFormat) => {
    const lengths = lengthsOf(f);
    const of =
      lengths === undefined
        ? ''
        : lengths[0] === lengths[1]
          ? ` of ${lengths[0]}`
          : ` of ${lengths[0]} to ${lengths[1]}`;
    return `${f.json} ${f.kind}${f.prefix ? ` "${f.prefix}"` : ''}${of}`;
  };
  for (const kind of ID_KINDS) {
    const [x, y] = [a[kind], b[kind]];
    if (!x || !y) continue;
    const [p, q] = [lengthsOf(x), lengthsOf(y)];
    // Lengths are a sample (two ids of 8 to 12 may share one): only a fixed length that three
    // ids or more showed on each side is compared.
    const fixed = (r: [number, number] | undefined, f: { distinct: number }) =>
      r !== undefined && r[0] === r[1] && f.distinct >= 3;
    const apart = fixed(p, x) && fixed(q, y) && p![0] !== q![0];
    if (x.kind !== y.kind || x.prefix !== y.prefix || x.json !== y.json || apart)
      out.push(`${kind} ids: ${shown(x)} ≠ ${shown(y)}`);
  }
  return out;
}

/** The fields the document lets be null: in two different records, null beside a value is no difference of form. */
const NULLABLE = new Set(
  [...Object.entries(CONTACT_FIELDS), ...Object.entries(MESSAGE_FIELDS)]
    .filter(([, field]) => field.type.endsWith('|null'))
    .map(([name]) => name),
);

/**
 * The differences of form between two bodies, each with where it is (`data.0.contact.id`).
 * `records`: the two are different records of a kind (a list's first where no field explains its
 * order), whose nullable fields may hold null on one side and a value on the other.
 */
function formDifferences(a: unknown, b: unknown, at: string, out: string[], records = false): void {
  const where = at === '' ? 'the body' : at;
  const key = at.split('.').at(-1) ?? '';
  if (records && NULLABLE.has(key) && (a === null || b === null)) return;
  if (kindOf(a) !== kindOf(b)) {
    out.push(`${where}: ${kindOf(a)} ≠ ${kindOf(b)}`);
    return;
  }
  if (key.endsWith('_at') && typeof a === 'number' && typeof b === 'number') {
    const digits = (n: number) => String(Math.trunc(n)).length;
    if (digits(a) !== digits(b)) out.push(`${where}: timestamps of ${digits(a)} ≠ ${digits(b)} digits`);
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if ((a.length === 0) !== (b.length === 0))
      out.push(
        `${where}: ${a.length === 0 ? 'empty' : 'not empty'} ≠ ${b.length === 0 ? 'empty' : 'not empty'}`,
      );
    else if (a.length > 0) formDifferences(a[0], b[0], `${at}${at ? '.' : ''}0`, out, records);
    return;
  }
  if (!isObject(a) || !isObject(b)) return;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const k of keys) {
    const path = `${at}${at ? '.' : ''}${k}`;
    if (!(k in a)) out.push(`${path}: absent ≠ present`);
    else if (!(k in b)) out.push(`${path}: present ≠ absent`);
    else formDifferences(a[k], b[k], path, out, records);
  }
}

/** The differences of two answers to the same step, in words (server's ≠ twin's). */
function stepDifferences(server: Step, twin: Step, records = false): string[] {
  if (server.skipped || twin.skipped) {
    if (server.skipped && twin.skipped) return [];
    return [
      `${server.skipped ? 'not sent to the server' : 'not sent to the twin'}: ${server.skipped ?? twin.skipped}`,
    ];
  }
  const [a, b] = [server.answer!, twin.answer!];
  const out: string[] = [];
  if (a.status !== b.status) out.push(`status ${a.status} ≠ ${b.status}`);
  if (a.contentType !== b.contentType)
    out.push(`content type ${a.contentType || '(none)'} ≠ ${b.contentType || '(none)'}`);
  if ((a.body === undefined) !== (b.body === undefined))
    out.push(
      `body ${a.body === undefined ? (a.text === '' ? 'empty' : 'not JSON') : 'JSON'} ≠ ${b.body === undefined ? (b.text === '' ? 'empty' : 'not JSON') : 'JSON'}`,
    );
  else if (a.body !== undefined) formDifferences(a.body, b.body, '', out, records);
  return out;
}

/**
 * The lists whose order the twin says no field explains (its `GET /__mock/conventions`, when it
 * is the mock): there, which record a list shows first is its server's hash, and not compared.
 */
export async function unorderedLists(twin: Side): Promise<Set<'contacts' | 'messages'>> {
  const found = new Set<'contacts' | 'messages'>();
  try {
    const response = await fetch(`${new URL(twin.baseUrl).origin}/__mock/conventions`, {
      headers: { Authorization: `Bearer ${twin.token}` },
    });
    const body = (await response.json()) as unknown;
    const order = isObject(body) && isObject(body.in_force) ? body.in_force.order : undefined;
    for (const list of ['contacts', 'messages'] as const)
      if (isObject(order) && isObject(order[list]) && order[list].field === null) found.add(list);
  } catch {
    // Not the mock, or not reachable there: every list's order is compared.
  }
  return found;
}

/** The order a list shows the session's two messages in: the one sent first, or the other. */
function sessionOrder(steps: Step[]): string | undefined {
  const sent = steps.filter((s) => s.name.startsWith('send a message')).map((s) => idOf(s.answer));
  const list = steps.find((s) => s.name === "list the contact's conversation")?.answer?.body;
  if (!isObject(list) || !Array.isArray(list.data) || sent.some((id) => id === undefined)) return undefined;
  const at = sent.map((id) => (list.data as unknown[]).findIndex((m) => isObject(m) && String(m.id) === id));
  if (at.some((i) => i < 0)) return undefined;
  return at[0]! < at[1]! ? 'the first sent first' : 'the last sent first';
}

/**
 * Whether the session's two messages carry the same `created_at` (sent within one tick of the
 * server's clock, where its order of ties decides which comes first); undefined where not shown.
 */
function sentTogether(steps: Step[]): boolean | undefined {
  const times = steps
    .filter((s) => s.name.startsWith('send a message'))
    .map((s) => fieldOf(s.answer, 'created_at'));
  return times.length !== 2 || times.includes(undefined) ? undefined : times[0] === times[1];
}

export interface Comparison {
  steps: { name: string; request: string; differences: string[] }[];
  /** The forms of the ids the whole session showed, where they differ. */
  ids: string[];
  /**
   * The order the conversation's list shows the two messages in. Not compared: `unexplained`, or
   * `apartOnOneSide` (sent within one tick of the clock on one side only: its order of ties there,
   * newest first on the other).
   */
  order: { server?: string; twin?: string; unexplained?: true; apartOnOneSide?: true };
}

/**
 * A list in an order no field explains (which record comes first is its server's hash): every item
 * of each side must have one of the same form on the other. The pair compared is the item least
 * like any of the other side's, beside the one most like it: no difference when each has its like.
 */
function pairedPages(server: Step, twin: Step): [Step, Step] {
  const [a, b] = [server.answer?.body, twin.answer?.body];
  if (!isObject(a) || !isObject(b) || !Array.isArray(a.data) || !Array.isArray(b.data)) return [server, twin];
  if (a.data.length === 0 || b.data.length === 0) return [server, twin];
  const distance = (x: unknown, y: unknown) => {
    const out: string[] = [];
    formDifferences(x, y, '', out, true);
    return out.length;
  };
  let worst: { x: unknown; y: unknown; d: number } | undefined;
  const consider = (items: unknown[], others: unknown[], flip: boolean) => {
    for (const item of items) {
      let best: { other: unknown; d: number } | undefined;
      for (const other of others) {
        const d = flip ? distance(other, item) : distance(item, other);
        if (best === undefined || d < best.d) best = { other, d };
      }
      if (worst === undefined || best!.d > worst.d)
        worst = flip ? { x: best!.other, y: item, d: best!.d } : { x: item, y: best!.other, d: best!.d };
    }
  };
  consider(a.data, b.data, false);
  consider(b.data, a.data, true);
  const first = (step: Step, body: Record<string, unknown>, item: unknown): Step => ({
    ...step,
    answer: { ...step.answer!, body: { ...body, data: [item] } },
  });
  return [first(server, a, worst!.x), first(twin, b, worst!.y)];
}

export function compareSessions(
  server: Step[],
  twin: Step[],
  unordered: ReadonlySet<'contacts' | 'messages'> = new Set(),
): Comparison {
  const listOf = (step: Step) =>
    step.request.startsWith('GET /v1/contacts?')
      ? 'contacts'
      : step.request.startsWith('GET /v1/messages?')
        ? 'messages'
        : undefined;
  return {
    steps: server.map((step, i) => {
      const list = listOf(step);
      const paired = list !== undefined && unordered.has(list);
      const [a, b] = paired ? pairedPages(step, twin[i]!) : [step, twin[i]!];
      return { name: step.name, request: step.request, differences: stepDifferences(a, b, paired) };
    }),
    ids: idDifferences(server, twin),
    order: unordered.has('messages')
      ? { unexplained: true }
      : sentTogether(server) !== sentTogether(twin)
        ? { apartOnOneSide: true }
        : { server: sessionOrder(server), twin: sessionOrder(twin) },
  };
}

/** Whether anything differs: a step, the ids' forms, or the list order. */
export const differs = (c: Comparison): boolean =>
  c.steps.some((s) => s.differences.length > 0) || c.ids.length > 0 || c.order.server !== c.order.twin;

/** The comparison in words: each step that differs, and the count. */
export function comparisonLines(comparison: Comparison): string[] {
  const lines: string[] = [];
  comparison.steps.forEach((step, i) => {
    if (step.differences.length === 0) return;
    lines.push(`${i + 1}. ${step.name} (${step.request}):`);
    for (const difference of step.differences) lines.push(`     ${difference}`);
  });
  for (const line of comparison.ids) lines.push(line);
  const { server, twin } = comparison.order;
  const orderDiffers = server !== twin;
  if (orderDiffers)
    lines.push(`list order: the server shows ${server ?? 'no order'}, the twin ${twin ?? 'no order'}`);
  if (comparison.order.unexplained)
    lines.push(
      "list order: not compared (the twin says no field explains its server's order of messages: which comes first is the server's hash)",
    );
  if (comparison.order.apartOnOneSide)
    lines.push(
      "list order: not compared (the session's two messages have the same created_at on one side and not on the other: a tie's order there, the newest first here; run again)",
    );
  const differing = comparison.steps.filter((s) => s.differences.length > 0).length;
  lines.push(
    `${comparison.steps.length - differing} of ${comparison.steps.length} steps answered alike (server ≠ twin above)${comparison.ids.length > 0 ? `; the ids' forms differ (${comparison.ids.length})` : ''}${orderDiffers ? '; the list order differs' : ''}.`,
  );
  return lines;
}

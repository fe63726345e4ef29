import type { Json } from './data';
import type { Exchange } from '../http/http';
import { observe } from '../profile/choices';
import {
  AS_CREATED,
  Model,
  type Expected,
  reactionsOf,
  SENDER_FIELDS,
  type ModelContact,
  type ModelMessage,
} from './model';
import { idOf } from './paging';
import { RuleFailure } from './harness';
import {
  CONTACT,
  describeChange,
  kept,
  MESSAGE,
  SENDER,
  SENDER_FORBIDDEN,
  nonIntegerTimestamps,
  problems,
  sameValue,
} from '../rules/fields';

/**
 * One record as a view shows it, compared with the model (./model.ts): its shape, its fields as
 * created or as changed since, its reactions and attachments. The first difference throws a
 * RuleFailure naming the rule that makes the model's value certain and the view that showed
 * otherwise. The views themselves are read in ./views.ts.
 */
export type View =
  | 'create answer'
  | 'update answer'
  | 'retrieve'
  | 'contacts list'
  | 'contacts list with active=true'
  | 'contacts list with active=false'
  | 'conversation list'
  | 'all messages list';

/** The rule of a view, for what the model holds "as created". */
const VIEW_RULE: Record<View, { contact: string; message: string }> = {
  'create answer': { contact: 'contacts.create', message: 'messages.send' },
  'update answer': { contact: 'contacts.update.display-name', message: 'messages.update.keeps-the-rest' },
  retrieve: { contact: 'contacts.retrieve', message: 'messages.retrieve' },
  'contacts list': { contact: 'contacts.list', message: 'contacts.list' },
  'contacts list with active=true': { contact: 'contacts.list', message: 'contacts.list' },
  'contacts list with active=false': { contact: 'contacts.list', message: 'contacts.list' },
  'conversation list': {
    contact: 'messages.list.conversation-filter',
    message: 'messages.list.conversation-filter',
  },
  'all messages list': {
    contact: 'messages.list.all-conversations',
    message: 'messages.list.all-conversations',
  },
};

export const show = (value: unknown) => {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 80 ? `${text.slice(0, 80)}…` : text;
};
/** What the model expects, in words; with both lengths when a long text came back changed. */
const wanted = (expected: Expected, shown: unknown) =>
  (expected.oneOf ? `one of ${show(expected.oneOf)}` : show(expected.value)) +
  (typeof shown === 'string' && typeof expected.value === 'string' && shown.length !== expected.value.length
    ? ` (${shown.length} characters shown, ${expected.value.length} sent)`
    : '');

/** A shown value against the model's: a value the kit sent may come back changed only losslessly. */
function matches(expected: Expected, shown: unknown, field: string): boolean {
  if (expected.oneOf)
    return expected.oneOf.some((value) => matches({ ...expected, value, oneOf: undefined }, shown, field));
  if (!expected.sent || typeof expected.value !== 'string') return sameValue(shown, expected.value);
  const outcome = kept(expected.value, shown, expected.sent);
  if (outcome === 'lossless')
    observe(
      `lossless change of what was sent: ${field}`,
      describeChange(expected.value, shown as string, expected.sent),
    );
  return outcome !== 'lost';
}

export function fail(rule: string, check: string, message: string, exchange?: Exchange): never {
  throw new RuleFailure(message, exchange, { rule, check });
}

function ruleOf(because: string, view: View, kind: 'contact' | 'message'): string {
  return because === AS_CREATED ? VIEW_RULE[view][kind] : because;
}

/** The document's field rules, applied to every record the kit made, in every view. */
function checkShape(item: Json, kind: 'contact' | 'message', view: View, exchange: Exchange): void {
  const wrong = problems(item, kind === 'contact' ? CONTACT : MESSAGE);
  if (wrong.length > 0)
    fail(`${kind}s.fields`, view, `the ${kind} ${idOf(item)} in the ${view}: ${wrong.join('; ')}`, exchange);
  const fractions = nonIntegerTimestamps(item, kind);
  if (fractions.length > 0)
    fail(
      'api.integer-timestamps',
      view,
      `the ${kind} ${idOf(item)} in the ${view}: ${fractions.join(', ')}`,
      exchange,
    );
  if (kind === 'message') {
    const sender = item.contact as Json;
    const wrongSender = problems(sender, SENDER);
    const extra = SENDER_FORBIDDEN.filter((field) => field in sender);
    if (wrongSender.length > 0 || extra.length > 0)
      fail(
        'messages.contact-fields',
        view,
        `the message ${idOf(item)} in the ${view}: its contact ${[...wrongSender, ...extra.map((f) => `carries ${f}`)].join('; ')}`,
        exchange,
      );
  }
}

export function compareContact(model: ModelContact, item: Json, view: View, exchange: Exchange): void {
  checkShape(item, 'contact', view, exchange);
  for (const [field, expected] of Object.entries(model.fields)) {
    if (!matches(expected, item[field], field)) {
      fail(
        ruleOf(expected.because, view, 'contact'),
        `${view}: ${field}`,
        `the contact ${model.id} in the ${view} has ${field} ${show(item[field])}, expected ${wanted(expected, item[field])}`,
        exchange,
      );
    }
  }
}

export function compareMessage(
  state: Model,
  model: ModelMessage,
  item: Json,
  view: View,
  exchange: Exchange,
): void {
  checkShape(item, 'message', view, exchange);
  const where = `the message ${model.id} in the ${view}`;
  for (const [field, expected] of Object.entries(model.fields)) {
    if (!matches(expected, item[field], field))
      fail(
        ruleOf(expected.because, view, 'message'),
        `${view}: ${field}`,
        `${where} has ${field} ${show(item[field])}, expected ${wanted(expected, item[field])}`,
        exchange,
      );
  }
  // 4.2 rule 3: the sender is the contact of the message's own conversation.
  const owner = state.contactOf(model.conversationId);
  const sender = item.contact as Json;
  if (owner) {
    for (const field of SENDER_FIELDS) {
      const expected = field === 'id' ? owner.id : owner.fields[field]!.value;
      const shown = field === 'id' ? String(sender[field]) : sender[field];
      if (field === 'id' ? shown !== expected : !matches(owner.fields[field]!, shown, `contact.${field}`))
        fail(
          'messages.contact-is-sender',
          `${view}: contact.${field}`,
          `${where} has contact.${field} ${show(sender[field])}, but its conversation belongs to the contact ${owner.id} whose ${field} is ${show(expected)}`,
          exchange,
        );
    }
  }
  const reactions = reactionsOf(item.reactions);
  if (reactions) {
    for (const [name, usernames] of model.reactions) {
      for (const [username, because] of usernames) {
        if (!reactions.get(name)?.has(username))
          fail(
            because,
            `${view}: reactions`,
            `${where} lacks the reaction ${name} by ${username}: reactions are ${show(item.reactions)}`,
            exchange,
          );
      }
    }
  }
  const attachments = Array.isArray(item.attachments) ? item.attachments : undefined;
  if (attachments) {
    const rule = ruleOf(model.attachments.because, view, 'message');
    if (attachments.length !== model.attachments.count)
      fail(
        rule,
        `${view}: attachments`,
        `${where} has ${attachments.length} attachment(s), expected ${model.attachments.count}: ${show(attachments)}`,
        exchange,
      );
    const keys = new Set(attachments.map((a) => state.attachmentKey(a)));
    const lost = model.attachments.keys.filter((key) => !keys.has(key));
    if (lost.length > 0)
      fail(
        rule,
        `${view}: attachments`,
        `${where} no longer has the attachment(s) ${lost.join(', ')}: ${show(attachments)}`,
        exchange,
      );
  }
}

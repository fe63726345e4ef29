import { deleting, type Json, type PendingWrite, type Reading } from '../http/exchange';
import { idOf } from './pages';
import { itemsOf } from './session';
import { routeId, show, type Verdicts } from './verdicts';
import { sendTraceKey } from './refusals';
import type { World } from './state';

/**
 * What happened to records that no request the session saw asked for: a record that is gone
 * though no delete named it (an operation took it with its own), and a record that a refused
 * create made all the same. Only the token's own requests change its world (as everywhere in the
 * judge); a write on its way may have done anything to the records it names.
 */

/** A delete of the token, what it named (judge/state.ts `World.deletes`). */
type Delete = World['deletes'][number];

/**
 * The delete that took a record it did not name, as far as the session can tell: of the token's
 * deletes that ended after the record was last shown and by `by`, and those on their way, one
 * taken without a token (it may have done anything in any world), else a message's delete in the
 * record's own conversation, else a contact's delete (which takes a conversation with it), else the
 * first. None when no delete came.
 */
export function takerOf(
  world: World,
  record: { learntAt: number; conversation?: unknown },
  by: number,
  onTheirWay: readonly Omit<Delete, 'at'>[] = [],
): Omit<Delete, 'at'> | undefined {
  const since = [...world.deletes.filter((d) => d.at > record.learntAt && d.at <= by), ...onTheirWay];
  return (
    since.find((d) => 'withoutToken' in d && d.withoutToken) ??
    since.find(
      (d) => d.kind === 'message' && d.conversation !== undefined && d.conversation === record.conversation,
    ) ??
    since.find((d) => d.kind === 'contact') ??
    since[0]
  );
}

/**
 * The rule a delete breaks when it takes a record it did not name: of one taken without a token,
 * api.auth-required (it should have been refused, and changed nothing).
 */
export const deleteRule = (taker: { kind: 'contact' | 'message'; withoutToken?: true }): string =>
  taker.withoutToken
    ? 'api.auth-required'
    : taker.kind === 'contact'
      ? 'contacts.delete'
      : 'messages.delete.permanent';

/** A delete as the judge's messages name it. */
export const deleteShown = (taker: { kind: 'contact' | 'message'; id: string; withoutToken?: true }) =>
  `the delete of the ${taker.kind} ${taker.id}${taker.withoutToken ? ' without a token' : ''}`;

/**
 * A retrieve answered 404 or 410 for a record the session saw alive, that no delete named (nor its
 * contact's, for a message) and none on its way may have taken: it is gone all the same. The delete
 * of the token that took it (`takerOf`) breaks its rule. With none, retrieve fails to answer a
 * record that exists.
 */
export function goneUnasked(
  v: Verdicts,
  reading: Reading,
  world: World | undefined,
  pending: readonly PendingWrite[],
): void {
  const { route, exchange } = reading;
  if (!world || exchange.method !== 'GET' || ![404, 410].includes(exchange.status)) return;
  if (route.kind !== 'contact' && route.kind !== 'message') return;
  const id = routeId(reading);
  const contact = route.kind === 'contact' ? world.contacts.get(id) : undefined;
  const message = route.kind === 'message' ? world.messages.get(id) : undefined;
  const known = contact ?? message;
  if (!known || known.learntAt >= exchange.startedAt) return;
  const conversation = contact ? contact.conversationId : String(message!.conversationId);
  const owner = conversation === undefined ? undefined : world.owners.get(conversation);
  const onTheirWay = pending
    .filter((w) => w.authorization === reading.authorization)
    .map(deleting)
    .filter((target) => target !== undefined)
    .map((target) => {
      const named = target.kind === 'message' ? world.messages.get(target.id)?.conversationId : undefined;
      return { ...target, ...(typeof named === 'string' ? { conversation: named } : {}) };
    });
  // A delete on its way may have taken it, or its conversation with the contact.
  if (onTheirWay.some((target) => target.id === id || target.id === owner)) return;
  const taker = takerOf(world, { learntAt: known.learntAt, conversation }, exchange.finishedAt, onTheirWay);
  const what = `${route.kind} ${id}`;
  if (taker)
    v.check(
      deleteRule(taker),
      `after ${deleteShown(taker)}, the ${what}, which no delete named, is gone: retrieve answers ${exchange.status}`,
    );
  else
    v.check(
      route.kind === 'contact' ? 'contacts.retrieve' : 'messages.retrieve',
      `the ${what}, shown alive before and deleted by no request, is answered ${exchange.status}`,
    );
}

/**
 * A record a refused create made all the same (judge/refusals.ts `refusedCreate`): the refused
 * request left a trace. A contact shown with the username of a create the server refused, and never
 * accepted since, that no accepted request made. When the session is sure of every send of the
 * token (`sureOfSends`: the kit's run, whose requests alone write to what it made, with no send of
 * unknown outcome nor one on its way), a message that no accepted send made, shown in a list or
 * retrieved after a send into its conversation was refused: with the text that send carried, or,
 * in the conversation of a contact the session made, of any text when the send lacked its own (a
 * conversation with a contact the session made holds only what the session sent).
 */
export function refusedShown(
  v: Verdicts,
  reading: Reading,
  world: World | undefined,
  sureOfSends: boolean,
): void {
  if (!world || world.refused.size === 0) return;
  const startedAt = reading.exchange.startedAt;
  const { contacts, messages } = itemsOf(reading);
  const trace = (key: unknown, item: Json, known: { seenAt: number } | undefined) => {
    const refusal = typeof key === 'string' ? world.refused.get(key) : undefined;
    if (!refusal || refusal.at > startedAt || world.ledger.created.has(idOf(item))) return undefined;
    return known && known.seenAt < refusal.at ? undefined : refusal;
  };
  // An accepted create answers the contact it made itself: no trace of an earlier refusal, whose
  // username it may well share (a create sent again with what the refusal asked for).
  const made = reading.exchange.method === 'POST';
  for (const item of made ? [] : contacts) {
    const refusal = trace(item.username, item, world.contacts.get(idOf(item)));
    if (!refusal) continue;
    v.check(
      refusal.lacking ? 'contacts.create.requires-username-and-phone-number' : 'contacts.create',
      `the contact ${idOf(item)} has the username ${show(item.username)} of a create the server refused${refusal.lacking ? ' for lacking what the document requires' : ''}: the refused request made it all the same`,
    );
  }
  if (!sureOfSends || reading.exchange.method !== 'GET') return;
  for (const item of messages) {
    const conversation = item.conversation_id;
    if (typeof conversation !== 'string') continue;
    const known = world.messages.get(idOf(item));
    const owner = world.owners.get(conversation);
    const refusal =
      trace(sendTraceKey(conversation, item.message), item, known) ??
      (owner !== undefined && world.ledger.created.has(owner)
        ? trace(sendTraceKey(conversation), item, known)
        : undefined);
    if (!refusal) continue;
    v.check(
      refusal.lacking ? 'messages.send.requires-conversation-id-and-message' : 'messages.send',
      refusal.lacking
        ? `the message ${idOf(item)} (${show(item.message)}), which no accepted send made, is in the conversation ${conversation} of a contact the run made, after a send into it that lacked its text was refused: the refused request made it all the same`
        : `the message ${idOf(item)}, which no accepted send made, has the text ${show(item.message)} of a send into the conversation ${conversation} the server refused: the refused request made it all the same`,
    );
  }
}

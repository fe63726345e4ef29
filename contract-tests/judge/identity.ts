import type { Json, Reading } from '../http/exchange';
import type { World } from './session';
import { idOf } from './pages';
import { show, type Verdicts } from './verdicts';

/**
 * An id names one record for ever: a create answers a new record, so its id is none that the
 * session saw before, alive or deleted. Only records seen before the create was sent count as
 * before it: a list answered while the create was on its way may already show the new record.
 */
export function newIds(
  v: Verdicts,
  reading: Reading,
  world: World,
  contacts: Json[],
  messages: Json[],
): void {
  const sent = reading.exchange.startedAt;
  const problems = [
    ...contacts.map(
      (c) =>
        taken('contact', idOf(c), world.contacts, world.goneContacts, sent) ||
        twice(world, idOf(c), 'contact', [
          ['username', world.contacts.get(idOf(c))?.stable.username, c.username],
        ]),
    ),
    ...messages.map((m) => {
      const known = world.messages.get(idOf(m));
      return (
        taken('message', idOf(m), world.messages, world.goneMessages, sent) ||
        twice(world, idOf(m), 'message', [
          ['conversation_id', known?.conversationId, m.conversation_id],
          ['message', known?.text, m.message],
        ])
      );
    }),
  ];
  v.check('api.unique-ids', ...problems);
}

/**
 * Two creates on their way at once, answered with one id: the earlier answer made a record of it,
 * and this one shows another record under the same id (another username, another conversation or
 * text), so one of the two was not made as a record of its own. (Two creates of the same content
 * may be answered with one record: a server may take a create sent twice as one.)
 */
function twice(
  world: World,
  id: string,
  kind: string,
  fields: [field: string, before: unknown, now: unknown][],
): string | false {
  if (!world.ledger.created.has(id)) return false;
  const other = fields.find(
    ([, before, now]) => typeof before === 'string' && typeof now === 'string' && before !== now,
  );
  return (
    other !== undefined &&
    `the new ${kind} has the id ${id}, which a create answered while this one was on its way gave to a ${kind} of another ${other[0]} (${show(other[1])}, now ${show(other[2])})`
  );
}

function taken(
  kind: string,
  id: string,
  alive: Map<string, { seenAt: number }>,
  gone: Map<string, number>,
  sent: number,
): string | false {
  const deletedAt = gone.get(id);
  if (deletedAt !== undefined && deletedAt <= sent)
    return `the new ${kind} has the id ${id}, which a ${kind} deleted before it had`;
  const seenAt = alive.get(id)?.seenAt;
  if (seenAt !== undefined && seenAt < sent)
    return `the new ${kind} has the id ${id}, which another ${kind} shown before it has`;
  return false;
}

import type { Json, Reading } from '../http/exchange';
import type { World } from './session';
import { idOf } from './pages';
import type { Verdicts } from './verdicts';

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
    ...contacts.map((c) => taken('contact', idOf(c), world.contacts, world.goneContacts, sent)),
    ...messages.map((m) => taken('message', idOf(m), world.messages, world.goneMessages, sent)),
  ];
  v.check('api.unique-ids', ...problems);
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

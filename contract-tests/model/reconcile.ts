import { config } from '../http/config';
import { InfraError, OutcomeReconciled, type Pairs } from '../http/http';
import { idOf, walk } from './paging';

type Json = Record<string, unknown>;

/**
 * A POST of the kit's whose outcome is unknown (its answer was transient, or none came) may have
 * made its record all the same: before it is sent again, the kit looks for it by the values it
 * sent, unique to the run (a contact's username; a message's text in its conversation), walking
 * the list to its end. Found: it goes into the ledger (`found`), so that the clean-up deletes
 * it, and the step is not judged (OutcomeReconciled). Not found: the POST is sent again. A list
 * the kit cannot walk to its end leaves the outcome unknown, and the run says so.
 */
export function reconciler(
  resource: 'contact' | 'message',
  sent: Pairs,
  token: string | null | undefined,
  found: (item: Json) => void,
): ((line: string) => Promise<void>) | undefined {
  // The lists are read with the run's token: another account's records are not in them.
  if (token !== undefined && token !== config.token) return undefined;
  const value = (key: string) => sent.find(([k]) => k === key)?.[1];
  const username = value('username');
  const conversation = value('conversation_id');
  const text = value('message');
  const mine =
    resource === 'contact'
      ? username !== undefined && ((item: Json) => item.username === username)
      : conversation !== undefined &&
        text !== undefined &&
        ((item: Json) => String(item.conversation_id) === conversation && item.message === text);
  if (!mine) return undefined;
  return async (line) => {
    const walked = await walk(
      `/v1/${resource}s`,
      resource === 'message' ? { conversation_id: conversation } : {},
      { limit: 100, maxPages: 200, until: (items) => items.some(mine) },
    );
    const item = walked.items.find(mine);
    if (item) {
      found(item);
      throw new OutcomeReconciled(
        `${line}: its outcome was unknown, and the ${resource} it sent was made all the same (${idOf(item)}); the kit deletes it, and this step cannot be judged`,
      );
    }
    if (!walked.complete)
      throw new InfraError(
        `${line}: its outcome is unknown, and the kit could not look for the ${resource} it may have made: ${walked.reason ?? 'the list could not be walked to its end'}`,
      );
  };
}

import type { Json } from '../model/data';
import { config } from '../http/config';
import { is4xx, send, type Exchange } from '../http/http';
import { AS_CREATED, filesOf, reactionsOf, type MessageChange, type Model } from '../model/model';
import { changePairs, objectOf } from '../model/operations';
import { RuleFailure } from '../model/harness';
import { kept } from '../rules/fields';
import { recordPath } from '../rules/resources';

/**
 * Updates sent at once. The document orders nothing between them, so the model allows every
 * order: each update the server acknowledged is kept (an added reaction or attachment stays, and
 * a rename's final value is one of those sent). A failure prints the run's seed (which fixed what
 * was sent, and in which order the requests left) and every exchange of the burst.
 */

/** The burst, one line, for a verdict's reason. */
function describeBurst(exchanges: Exchange[]): string {
  const lines = exchanges.map(
    (e, i) => `${i + 1}. ${e.method} ${e.path}${e.sent ? ` ${e.sent.slice(0, 120)}` : ''} → ${e.status}`,
  );
  return `after ${exchanges.length} requests sent at once (seed ${config.seed}): ${lines.join('; ')}`;
}

/** Runs `check`; a failure it finds is told with the burst that came before it. */
export async function afterBurst(exchanges: Exchange[], check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (!(error instanceof RuleFailure)) throw error;
    throw new RuleFailure(
      `${error.message.split('\n')[0]} — ${describeBurst(exchanges)}`,
      error.exchange,
      error.of,
    );
  }
}

/** The seed's rotation of `items`: the order the requests leave in is the seed's. */
export function bySeed<T>(items: T[]): T[] {
  const at = Math.abs(config.seed) % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}

const ruleOfChange = (change: MessageChange) =>
  change.message !== undefined
    ? 'messages.update.edit-text'
    : change.reaction
      ? 'messages.update.add-reaction'
      : 'messages.update.add-attachment';

/** Whether an update's answer shows the change it acknowledged. */
function showsOwn(change: MessageChange, body: Json): boolean {
  // Reactions in another shape are messages.reactions-shape's to judge: nothing to read here.
  const reactions = reactionsOf(body.reactions);
  if (change.reaction && reactions && !reactions.get(change.reaction.name)?.has(change.reaction.username))
    return false;
  const attachments = JSON.stringify(body.attachments ?? null);
  return filesOf(change).every((file) => attachments.includes(file));
}

/** Sends the updates of one message at once; applies each acknowledged one to the model. */
export async function parallelUpdates(
  model: Model,
  id: string,
  changes: MessageChange[],
): Promise<{ exchanges: Exchange[]; acked: number }> {
  for (const change of changes) for (const file of filesOf(change)) model.filenames.add(file);
  const exchanges = await Promise.all(
    changes.map((change) => send('PUT', recordPath('message', id), { form: changePairs(change) })),
  );
  let acked = 0;
  let latest: number | undefined;
  for (const [i, exchange] of exchanges.entries()) {
    const change = changes[i]!;
    // A success without a JSON object is api.json-objects' failure, whatever the request.
    const body = objectOf(exchange);
    if (!body) {
      if (is4xx(exchange)) continue; // refused: an answer (409 and the like), and nothing to keep
      throw new RuleFailure(
        `one of ${changes.length} updates sent at once was answered ${exchange.status} — ${describeBurst(exchanges)}`,
        exchange,
        {
          rule: ruleOfChange(change),
          check: 'updates sent at once',
        },
      );
    }
    if (!showsOwn(change, body))
      throw new RuleFailure(
        `the answer to one of ${changes.length} updates sent at once lacks its own change — ${describeBurst(exchanges)}`,
        exchange,
        { rule: ruleOfChange(change), check: 'updates sent at once: update answer' },
      );
    acked += 1;
    model.updateMessage(id, change, body);
    if (typeof body.updated_at === 'number') latest = Math.max(latest ?? body.updated_at, body.updated_at);
  }
  // The last change's time is the latest of those the answers show.
  const message = model.messages.get(id);
  if (message && acked > 0) message.fields.updated_at = { value: latest ?? null, because: AS_CREATED };
  return { exchanges, acked };
}

/**
 * Renames one contact at once with each of `names`. Every answer shows one of the names sent, and
 * retrieve afterwards one of those acknowledged; the model then holds that one.
 */
export async function parallelRenames(
  model: Model,
  id: string,
  names: string[],
): Promise<{ exchanges: Exchange[]; acked: number }> {
  const exchanges = await Promise.all(
    names.map((name) => send('PUT', recordPath('contact', id), { form: { display_name: name } })),
  );
  const fail = (message: string, exchange: Exchange, check: string): never => {
    throw new RuleFailure(`${message} — ${describeBurst(exchanges)}`, exchange, {
      rule: 'contacts.update.display-name',
      check,
    });
  };
  const among = (shown: unknown, sent: string[]) => sent.find((name) => kept(name, shown, 'text') !== 'lost');
  const acked: string[] = [];
  for (const [i, exchange] of exchanges.entries()) {
    if (is4xx(exchange)) continue;
    const body = objectOf(exchange);
    if (!body)
      fail(
        `one of ${names.length} renames sent at once was answered ${exchange.status}`,
        exchange,
        'renames sent at once',
      );
    if (among(body!.display_name, names) === undefined)
      fail(
        `the answer to one of ${names.length} renames sent at once shows none of the names sent`,
        exchange,
        'renames sent at once: update answer',
      );
    acked.push(names[i]!);
  }
  if (acked.length === 0) return { exchanges, acked: 0 };
  const retrieved = await send('GET', recordPath('contact', id));
  const final = among((retrieved.body as Json | undefined)?.display_name, acked);
  if (final === undefined)
    fail(
      `after ${names.length} renames sent at once, the contact is named by none of the ${acked.length} taken`,
      retrieved,
      'renames sent at once: retrieve',
    );
  model.renameContact(id, final);
  return { exchanges, acked: acked.length };
}

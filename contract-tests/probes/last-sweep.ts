import { is2xx, send, type Exchange } from '../http/http';
import { mapAtOnce } from '../http/at-once';
import { walk, idOf } from '../model/paging';
import type { Json } from '../model/data';
import { fingerprint, writeRecord, type RecordLine } from '../http/records';
import { excerpt, RuleFailure } from '../model/harness';
import { settled } from '../model/settle';
import { recordPath } from '../rules/resources';

type Resource = 'contact' | 'message';

/**
 * The rule that makes a deleted record's absence certain: its delete, or for a message that the
 * kit never deleted itself (gone when it came to clean up), the delete of its contact.
 */
function ruleOf(resource: Resource, deletedByKit: boolean): string {
  if (resource === 'contact') return 'contacts.delete';
  return deletedByKit ? 'messages.delete.permanent' : 'contacts.delete.cascades-conversation';
}

const TEST = 'last sweep: every record the kit made, after the run';

/**
 * At the end of the run, after every test has deleted what it made, the kit reads back every
 * record it ever made (those still alive too, for the judge). Each one deleted must stay gone:
 * refused by retrieve, and absent from the contacts list and the list of all messages (read with
 * the largest page the server allows, waiting out --settle-ms). A record that came back (a delete
 * that did not hold, a later create that brought it back) fails the rule of the delete that took
 * it, with the exchange that showed it, as a verdict in the run's records. Nothing can be sent
 * into the conversation of the contact deleted first: a conversation that takes messages again
 * some time after its contact's delete fails the cascade.
 *
 * Answers the messages the kit left to their contact's delete (model/data.ts `cleanup`) that are
 * still there: every one of them is read back, the cascade's failure or not, for the bin to delete.
 */
export async function lastSweep(records: RecordLine[]): Promise<{ resource: Resource; id: string }[]> {
  const made = new Map<string, string>();
  for (const line of records)
    if (line.kind === 'created' && line.fingerprint)
      made.set(`${line.resource}:${line.id}`, line.fingerprint);
  /** Deleted records of the kit's, by kind and id, with their fingerprints. */
  const deleted = new Map<
    string,
    { resource: Resource; id: string; fingerprint: string; rule: string; leftToCascade: boolean }
  >();
  for (const line of records) {
    if (line.kind !== 'deleted') continue;
    const key = `${line.resource}:${line.id}`;
    const print = made.get(key);
    const byKit = line.by === 'delete' || deleted.get(key)?.rule === ruleOf(line.resource, true);
    if (print)
      deleted.set(key, {
        resource: line.resource,
        id: line.id,
        fingerprint: print,
        rule: ruleOf(line.resource, byKit),
        leftToCascade: line.by === 'cascade',
      });
  }
  // What the kit made and has not deleted (the witness that discover.ts keeps, with what it wrote
  // to it, and anything a test could not delete) is read once more, seconds after its writes: the
  // judge of every exchange holds these reads to what the earlier ones showed.
  const alive = new Map<string, { resource: Resource; id: string }>();
  for (const line of records)
    if (line.kind === 'created') alive.set(`${line.resource}:${line.id}`, line);
    else if (line.kind === 'deleted') alive.delete(`${line.resource}:${line.id}`);
  await mapAtOnce([...alive.values()], ({ resource, id }) => send('GET', recordPath(resource, id)));
  if (deleted.size === 0) return [];
  /** The kit's own deleted record, shown again; a record that only took over its id is not. */
  const backAgain = (resource: Resource, item: Json) => {
    const gone = deleted.get(`${resource}:${idOf(item)}`);
    return gone !== undefined && gone.fingerprint === fingerprint(resource, item) ? gone : undefined;
  };
  const failed = new Set<string>();
  const fail = (rule: string, check: string, reason: string, exchange?: Exchange) => {
    if (failed.has(rule)) return;
    failed.add(rule);
    writeRecord({
      kind: 'verdict',
      rule,
      test: TEST,
      verdict: 'fail',
      check,
      reason,
      ...(exchange ? { exchange: excerpt(exchange) } : {}),
    });
  };
  // Each retrieve stands alone: a few in flight at once.
  const stillThere: { resource: Resource; id: string }[] = [];
  await mapAtOnce([...deleted.values()], async ({ resource, id, rule, leftToCascade }) => {
    if (failed.has(rule) && !leftToCascade) return;
    const retrieved = async () => {
      const answer = await send('GET', recordPath(resource, id));
      const shown =
        is2xx(answer) && answer.body && typeof answer.body === 'object' ? (answer.body as Json) : undefined;
      if (shown && backAgain(resource, shown))
        throw new RuleFailure(
          `the ${resource} ${id}, deleted during the run, is retrieved again at its end`,
          answer,
        );
    };
    // A message gone with its contact's delete (a cascade) may take up to --settle-ms to go.
    await (rule === ruleOf('message', false) ? settled(retrieved) : retrieved()).catch((error: unknown) => {
      if (!(error instanceof RuleFailure)) throw error;
      fail(rule, 'last sweep: retrieve', error.message, error.exchange);
      if (leftToCascade) stillThere.push({ resource, id });
    });
  });
  // The conversation of the contact deleted first, the longest ago: still nothing can be sent
  // into it (a message sent all the same is the kit's to delete).
  const conversations = new Map<string, string>();
  for (const line of records)
    if (line.kind === 'created' && line.resource === 'contact' && line.conversation)
      conversations.set(line.id, line.conversation);
  const first = [...deleted.values()].find((d) => d.rule === 'contacts.delete' && conversations.has(d.id));
  if (first && !failed.has('contacts.delete.cascades-conversation')) {
    const conversation = conversations.get(first.id)!;
    const sent = await send('POST', '/v1/messages', {
      form: [
        ['conversation_id', conversation],
        ['message', 'last sweep: into a deleted conversation'],
      ],
    });
    const made = is2xx(sent) && sent.body && typeof sent.body === 'object' ? (sent.body as Json) : undefined;
    if (made && (typeof made.id === 'string' || typeof made.id === 'number'))
      writeRecord({ kind: 'created', resource: 'message', id: String(made.id), label: 'last sweep' });
    if (is2xx(sent))
      fail(
        'contacts.delete.cascades-conversation',
        'last sweep: send into a deleted conversation',
        `at the end of the run, a message is sent into the conversation ${conversation} of the contact ${first.id}, deleted during it`,
        sent,
      );
  }
  for (const [resource, path] of [
    ['contact', '/v1/contacts'],
    ['message', '/v1/messages'],
  ] as const) {
    let found: { rule: string; message: string; exchange?: Exchange }[] = [];
    await settled(async () => {
      const walked = await walk(path, {}, { limit: 100, maxPages: 200 });
      found = [];
      for (const page of walked.pages)
        for (const item of page.data) {
          const gone = backAgain(resource, item);
          if (gone && !failed.has(gone.rule) && !found.some((f) => f.rule === gone.rule))
            found.push({
              rule: gone.rule,
              message: `the ${resource} ${gone.id}, deleted during the run, is listed again at its end`,
              exchange: page.exchange,
            });
        }
      if (found.length > 0) throw new RuleFailure(found[0]!.message, found[0]!.exchange);
    }).catch((error: unknown) => {
      if (!(error instanceof RuleFailure)) throw error;
    });
    for (const f of found) fail(f.rule, 'last sweep: list', f.message, f.exchange);
  }
  return stillThere;
}

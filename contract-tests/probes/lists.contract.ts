import {
  deleteNow,
  makeContacts,
  makeMessages,
  shared,
  useCleanup,
  type Contact,
  type Json,
  type Message,
} from '../model/data';
import { send } from '../http/http';
import { asPage, idOf, walk } from '../model/paging';
import { observe } from '../profile/choices';
import { rule, type RuleContext } from '../model/harness';
import { pastTheWindow, settled } from '../model/settle';

useCleanup();

/**
 * Eleven contacts, eleven messages in the first one's conversation and two in the second's: one
 * more than the default page, so that has_more must show. The server may hold any other data;
 * the kit only relies on its own.
 */
const OWN = 11;
const world = shared(async () => {
  const contacts: Contact[] = await makeContacts('list', OWN);
  const a = contacts[0]!;
  const b = contacts[1]!;
  const inA: Message[] = await makeMessages(a.conversation_id, 'lista', OWN);
  const inB: Message[] = await makeMessages(b.conversation_id, 'listb', 2);
  return { contacts, a, b, inA, inB };
});

const ids = (items: Json[]) => items.map(idOf);

/**
 * The body of a rule that reads the lists of the kit's shared records. On a server whose lists
 * settle late (--settle-ms), its reading is made again until it agrees or the window ends.
 */
function readingLists(
  body: (t: RuleContext, own: Awaited<ReturnType<typeof world>>) => Promise<void>,
): (t: RuleContext) => Promise<void> {
  return async (t) => {
    const own = await world();
    // The judge holds a rule it decides to views past the window; the rule's own checks are read
    // again until they agree.
    if (t.rule.decidedByJudge) await pastTheWindow();
    await settled(() => body(t, own));
  };
}

rule(
  'contacts.list.active-parameter',
  'the contacts list asked for with active=true and active=false: the judge holds each answer to a page',
  async () => {
    for (const active of ['true', 'false']) await send('GET', '/v1/contacts', { query: { active } });
  },
);

/** The document's three lists: contacts, all messages, and one conversation's messages. */
const listsOf = (a: Contact) =>
  [
    ['/v1/contacts', {}],
    ['/v1/messages', {}],
    ['/v1/messages', { conversation_id: a.conversation_id }],
  ] as const;

rule(
  'lists.page-fields',
  'each list asked for: the judge holds each answer to has_more (boolean) and data (array)',
  async () => {
    const { a } = await world();
    for (const [path, query] of listsOf(a)) await send('GET', path, { query });
  },
);

rule(
  'lists.default-page-size',
  'each list asked for without limit, the kit holding more than ten records in each: the judge holds each page to at most ten items',
  readingLists(async (_t: RuleContext, { a }) => {
    for (const [path, query] of listsOf(a)) await send('GET', path, { query });
  }),
);

rule(
  'lists.has-more',
  'a conversation of eleven asked for by default, with limit=20 and walked, the contacts by default and with limit=3: the judge holds each has_more to the records the kit made',
  readingLists(async (_t: RuleContext, { a }) => {
    await send('GET', '/v1/messages', { query: { conversation_id: a.conversation_id } });
    await send('GET', '/v1/messages', { query: { conversation_id: a.conversation_id, limit: 20 } });
    await walk('/v1/messages', { conversation_id: a.conversation_id });
    await send('GET', '/v1/contacts');
    await send('GET', '/v1/contacts', { query: { limit: 3 } });
  }),
);

/**
 * Pages of fifty and more, in the third contact's conversation of fifty-one messages, made for
 * them and deleted right after, so that the other rules read the lists as they were: the largest
 * limit is not shown, and a server may cap its pages, but has_more must still say what lies
 * beyond. A limit the server refuses is its right.
 */
const LONG = 51;
rule(
  'lists.has-more',
  'a conversation of fifty-one asked for with limits of 50, 100 and 1000: the judge holds each has_more to what lies beyond the page',
  async () => {
    const c = (await world()).contacts[2]!;
    const inC = await makeMessages(c.conversation_id, 'listc', LONG);
    try {
      await pastTheWindow();
      for (const limit of [50, 100, 1000])
        await send('GET', '/v1/messages', { query: { conversation_id: c.conversation_id, limit } });
    } finally {
      await deleteNow('message', ids(inC));
    }
  },
);

rule(
  'lists.limit',
  'each list asked for with limit=3, the kit holding more than three records in each: the judge holds each page to at most three items, and to as many as the list holds up to three',
  readingLists(async (_t: RuleContext, { a }) => {
    for (const [path, query] of listsOf(a)) await send('GET', path, { query: { ...query, limit: 3 } });
    // The maximum limit is not shown: observe it, for the server profile.
    const large = await send('GET', '/v1/messages', { query: { limit: 1000 } });
    const largePage = asPage(large);
    observe(
      'limit=1000',
      largePage ? `answered ${largePage.data.length} items` : `refused (${large.status})`,
    );
  }),
);

rule(
  'messages.list.conversation-filter',
  "the kit's two conversations listed by conversation_id, each walked to its end in default pages and in pages of a hundred: the judge holds every page to that conversation, and the walk to every message of it",
  readingLists(async (t: RuleContext, { a, b }) => {
    for (const contact of [a, b]) {
      // The filter must hold on every page, the second and later ones too (the filter together
      // with the paging parameter).
      await walk('/v1/messages', { conversation_id: contact.conversation_id });
      const walked = await walk('/v1/messages', { conversation_id: contact.conversation_id }, { limit: 100 });
      if (walked.pages.length === 0) t.notRun(walked.reason ?? 'the list did not answer');
      // A list never seen to its end holds that conversation alone, as far as it was seen; whether
      // it holds every message of it is not judged.
      if (!walked.complete) t.notRun(`could not see the whole conversation: ${walked.reason}`);
    }
  }),
);

rule(
  'messages.list.all-conversations',
  "the list without conversation_id walked to its end in pages of a hundred (twenty at most): the judge holds it to every message seen alive, of the kit's two conversations among them",
  readingLists(async (t: RuleContext, { inA, inB }) => {
    const walked = await walk('/v1/messages', {}, { limit: 100, maxPages: 20 });
    if (walked.pages.length === 0) t.notRun(walked.reason ?? 'the list did not answer');
    // A walk that neither ended nor came upon the kit's newest messages showed too little to judge.
    const found = new Set(ids(walked.items));
    if (!walked.complete && ![inA.at(-1)!, inB.at(-1)!].every((m) => found.has(m.id)))
      t.notRun(`could not find the kit's messages: ${walked.reason}`);
    observeOrder(walked.items, [...inA, ...inB]);
  }),
);

/** The list order, for the server profile: where the kit's messages, made one after another, appear. */
function observeOrder(items: Json[], madeInOrder: Message[]): void {
  const position = new Map(items.map((item, i) => [idOf(item), i]));
  const seen = madeInOrder.map((m) => position.get(m.id)).filter((p): p is number => p !== undefined);
  if (seen.length < 3) return;
  const ascending = seen.every((p, i) => i === 0 || p > seen[i - 1]!);
  const descending = seen.every((p, i) => i === 0 || p < seen[i - 1]!);
  observe(
    'list order',
    descending ? 'newest first' : ascending ? 'oldest first' : 'neither newest nor oldest first',
  );
}

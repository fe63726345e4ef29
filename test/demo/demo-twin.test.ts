import { listen, type RunningServer } from '../../src/express/server';
import { findChromium, launch, watchedPage } from '../browser/chromium';
import linkPaging from '../twin/link-paging.profile.json';
import stagingLike from '../twin/staging-like.profile.json';
import { demoSite, visible } from './support';

/**
 * The demo on the twins of two servers that fill the document's gaps differently, in headless
 * Chromium (`?api=<twin>`): it reads the conventions in force from the mock (GET
 * /__mock/conventions) instead of assuming the mock's own. One twin is under /api, pages by
 * `page=` up to 50, lists oldest first, writes timestamps in milliseconds, merges reactions and
 * answers errors as application/problem+json with the message in `detail` and no code; the other
 * is under /svc, pages by a Link header up to 20, lists newest first, and nests its error as
 * `{error: {message, code}}`. On both the chat lists every contact, opens the newest messages of a
 * conversation with the right dates, loads the earlier ones, sends, reacts, and shows a forced
 * error in the server's words.
 */
const CHROMIUM = findChromium();
const TOKEN = 'demo-token';

type Json = Record<string, any>;
const TWINS: { name: string; profile: Json; title: string }[] = [
  { name: 'page=, oldest first, milliseconds, problem+json', profile: stagingLike, title: '503' },
  {
    name: 'a Link header, newest first, {error: {message, code}}',
    profile: linkPaging,
    title: '503 service_unavailable',
  },
];

describe(`The demo on the twins of two servers (${CHROMIUM.description})`, () => {
  const demo = demoSite('messaging-demo-twin-', () => launch(CHROMIUM));

  it.each(TWINS)(
    'works against the twin of a server with $name',
    async ({ profile, title }) => {
      const twin: RunningServer = await listen({
        port: 0,
        contacts: 30,
        messages: 500,
        conventions: profile,
      });
      const { context, page, pageErrors } = await watchedPage(demo.browser);
      try {
        // The world as the mock holds it (the control routes keep its shapes and Unix seconds).
        const state = (await (
          await fetch(`${twin.url}/__mock/state`, { headers: { Authorization: `Bearer ${TOKEN}` } })
        ).json()) as { contacts: Json[]; messages: Json[] };

        await page.goto(`${demo.site.url}?api=${encodeURIComponent(twin.url)}`);
        await visible(page.locator('#contacts .contact').first(), 'the contact list', 20_000);
        // Every contact, though the twin's pages hold fewer (20 or 50 at most, and 30 contacts).
        await expect(page.locator('#contacts .contact').count()).resolves.toBe(state.contacts.length);

        // The longest conversation opens on its newest messages, dated as the mock dates them.
        const of = (c: Json) => state.messages.filter((m) => m.conversation_id === c.conversation_id);
        const contact = state.contacts.reduce((a, b) => (of(b).length > of(a).length ? b : a));
        await visible(page.locator('#messages .message').first(), 'the first conversation');
        await page.locator(`#contacts .contact[data-contact-id="${contact.id}"]`).click();
        await visible(
          page.locator(`#contacts .contact[aria-current="true"][data-contact-id="${contact.id}"]`),
          'the conversation selected',
        );
        await visible(page.locator('#messages .message').first(), 'its messages');
        const messages = of(contact).sort((a, b) => b.created_at - a.created_at);
        const newest = messages.filter((m) => m.created_at === messages[0].created_at).map((m) => m.message);
        const last = await page.locator('#messages .message').last().textContent();
        expect(newest.some((text) => last!.includes(text))).toBe(true);
        for (const day of await page.locator('#messages .day').allTextContents())
          expect(day).not.toMatch(/\d{5}|Invalid/);

        // Earlier messages, as the twin's list gives them.
        const shown = await page.locator('#messages .message').count();
        expect(messages.length).toBeGreaterThan(shown);
        await page.getByRole('button', { name: 'Load earlier messages' }).click();
        await page.locator('#messages .message').nth(shown).waitFor({ timeout: 10_000 });

        // A message sent, a reaction, then a forced 503 shown in the server's words.
        const text = `Sent to the twin at ${Date.now()}`;
        await page.locator('#composer-input').fill(text);
        await page.locator('#send').click();
        const sent = page.locator('#messages .message.outgoing', { hasText: text });
        await visible(sent, 'the sent message');
        await sent.locator('.react').click();
        await visible(sent.locator('.chip[data-reaction="thumbs_up"]'), 'the reaction chip');
        await page.locator('#simulate').click();
        await page.locator('#composer-input').fill('This one meets a 503');
        await page.locator('#send').click();
        await visible(page.locator('#banner'), 'the error banner');
        expect(await page.locator('#banner-title').textContent()).toBe(title);
        expect(await page.locator('#banner-message').textContent()).toMatch(/^Simulated 503 answer/);
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
        await twin.close();
      }
    },
    90_000,
  );
});

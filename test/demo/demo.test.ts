import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildDemo } from '../../scripts/build-demo';
import { SEED_DEFAULTS, generateWorld } from '../../src/seed';
import { findChromium, launch, watchedPage } from '../browser/chromium';
import { serveFolder, visible, type Site } from './support';

/**
 * The static demo (demo/, `npm run demo`) in headless Chromium, served by a bare static file
 * server and nothing else: no mock server runs anywhere. Mock Service Worker answers the chat's
 * API requests inside the page, and keeps the token's world in localStorage; the static server
 * records every path it is asked for, to show that no API request ever reached it.
 *
 * With UPDATE_SCREENSHOTS=1 the screenshot goes to docs/images/demo.png (the picture of docs/msw.md).
 */
const CHROMIUM = findChromium();
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(__dirname, '..', '..', 'docs', 'images', 'demo.png')
    : path.join(os.tmpdir(), 'messaging-api-mock-demo.png');

describe(`The static demo in a real browser, with Mock Service Worker and no server (${CHROMIUM.description})`, () => {
  let folder: string;
  let site: Site;
  let siteUrl: string;
  let browser: Browser;
  let page: Page;
  /** Every URL the page requested, answered by the network or by the service worker. */
  let requested: string[];
  let pageErrors: string[];
  const seeded = generateWorld(SEED_DEFAULTS).contacts;
  const sent = 'Thursday works for me. See you at 7?';
  let sentId: string;

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'messaging-demo-'));
    await buildDemo(folder);
    site = await serveFolder(folder);
    // A service worker needs a secure context, which http://127.0.0.1 is.
    siteUrl = site.url;
    browser = await launch(CHROMIUM);
    ({ page, requested, pageErrors } = await watchedPage(browser));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (site) await site.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const messages = () => page.locator('#messages .message');
  const sentMessage = () => page.locator(`#messages .message[data-message-id="${sentId}"]`);
  const thumbsUp = () => sentMessage().locator('.chip[data-reaction="thumbs_up"]');
  /**
   * The chip's words: its emoji where this browser draws emoji, else the reaction's name, for an
   * emoji without its font is an empty box (as on the machines that run the tests: no emoji font).
   */
  const thumbsUpShown = async () =>
    (await page.evaluate("document.documentElement.classList.contains('no-emoji')")) ? ':thumbs_up:1' : '👍1';

  it('lists the seeded contacts, answered inside the page', async () => {
    await page.goto(siteUrl);
    await visible(page.locator('#contacts .contact'), 'the contact list', 20_000);
    const usernames = await page.locator('#contacts .contact .username').allTextContents();
    expect(usernames.sort()).toEqual(seeded.map((c) => `@${c.username}`).sort());
    // Contacts that were active wear a dot; those never active do not.
    const active = seeded.filter((c) => c.last_active_at !== null).length;
    expect(active).toBeGreaterThan(0);
    expect(active).toBeLessThan(seeded.length);
    expect(await page.locator('#contacts .contact .dot').count()).toBe(active);
    // The first contact's conversation opens by itself.
    await visible(messages(), 'the first conversation');
    expect(await page.evaluate('navigator.serviceWorker.controller?.scriptURL')).toBe(
      `${siteUrl}mockServiceWorker.js`,
    );
  }, 40_000);

  it('sends a message and shows it at the bottom of the conversation', async () => {
    const before = await messages().count();
    await page.locator('#composer-input').fill(sent);
    await page.locator('#send').click();
    await visible(page.locator('#messages .message.outgoing', { hasText: sent }), 'the sent message');
    expect(await messages().count()).toBe(before + 1);
    const last = messages().last();
    expect(await last.locator('.text').textContent()).toBe(sent);
    sentId = (await last.getAttribute('data-message-id')) ?? '';
    expect(sentId).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(await page.locator('#composer-input').inputValue()).toBe('');
  }, 20_000);

  it("adds a reaction from the user 'me' and shows its chip", async () => {
    expect(await thumbsUp().count()).toBe(0);
    await sentMessage().locator('.react').click();
    await visible(thumbsUp(), 'the 👍 chip of the sent message');
    expect((await thumbsUp().textContent())?.replace(/\s/g, '')).toBe(await thumbsUpShown());
    expect(await thumbsUp().getAttribute('class')).toContain('mine');
    expect(await thumbsUp().getAttribute('title')).toBe('thumbs_up: me');
    // The attachments' icon is a word too.
    const labels = await page.locator('#messages .attachments .label').allTextContents();
    expect(labels.length).toBeGreaterThan(0);
    expect(new Set(labels)).toEqual(new Set(['File']));
  }, 20_000);

  it('keeps the sent message and its reaction across a reload (localStorage)', async () => {
    await page.reload();
    await visible(sentMessage(), 'the sent message after the reload', 20_000);
    await visible(thumbsUp(), 'the 👍 chip after the reload');
    expect(await messages().last().getAttribute('data-message-id')).toBe(sentId);
    expect((await thumbsUp().textContent())?.replace(/\s/g, '')).toBe(await thumbsUpShown());
    expect(await page.locator('#banner').isVisible()).toBe(false);

    // The picture of docs/msw.md: the conversation, the sent message with its reaction, no banner.
    await page.mouse.move(0, 0);
    await page.locator('#composer-input').blur();
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
  }, 40_000);

  it('shows a forced error (Prefer: code=503) in the banner, and keeps the draft', async () => {
    const before = await messages().count();
    await page.locator('#simulate').click();
    expect(await page.locator('#simulate').getAttribute('aria-pressed')).toBe('true');
    await page.locator('#composer-input').fill('This one meets a 503');
    await page.locator('#send').click();
    await visible(page.locator('#banner'), 'the error banner');
    expect(await page.locator('#banner-title').textContent()).toBe('503 service_unavailable');
    expect(await page.locator('#banner-message').textContent()).toMatch(/^Simulated 503 answer/);
    // Only the one request failed: the switch is off again, the draft waits to be sent again.
    expect(await page.locator('#simulate').getAttribute('aria-pressed')).toBe('false');
    expect(await page.locator('#composer-input').inputValue()).toBe('This one meets a 503');
    expect(await messages().count()).toBe(before);
  }, 20_000);

  it('was answered entirely inside the browser', () => {
    // The static server served the page, and never an API request.
    expect(site.served).toEqual(
      expect.arrayContaining(['/', '/main.js', '/styles.css', '/mockServiceWorker.js']),
    );
    expect(site.served.filter((p) => p.startsWith('/api/'))).toEqual([]);
    // The page asked for API paths all the same, and nothing outside its own origin (no avatars, fonts or CDN).
    expect(requested.some((url) => url.startsWith(`${siteUrl}api/v1/`))).toBe(true);
    expect(requested.filter((url) => !url.startsWith(siteUrl) && !url.startsWith('data:'))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ICON_FILES, iconIco, iconSvg } from '../../scripts/dashboard-icon';
import { listen, type RunningServer } from '../../src/express/server';
import { visible } from '../demo/support';
import { findChromium, launch, watchedPage, type WatchedPage } from './chromium';

/**
 * The dashboard at /__mock/ in headless Chromium, against a running mock: what a client does
 * with a token shows in the page, and what the page does (reset, switches, import) reaches the
 * mock. From the first load on, the page's console stays empty and none of its requests fails,
 * unless a test expects it; the mock logs its requests, and the dashboard's own are not among
 * them. With UPDATE_SCREENSHOTS=1 the screenshot goes to docs/images/dashboard.png.
 */
const CHROMIUM = findChromium();
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(__dirname, '..', '..', 'docs', 'images', 'dashboard.png')
    : path.join(os.tmpdir(), 'messaging-api-mock-dashboard.png');
const TOKEN = 'dashboard-token';

describe(`The dashboard at /__mock/ in a real browser (${CHROMIUM.description})`, () => {
  let mock: RunningServer;
  let browser: Browser;
  let page: Page;
  let folder: string;
  /** Every URL the page requested, every error it threw, its console and its failed requests. */
  let watched: WatchedPage;
  /** The mock's request log, a line a request. */
  const logged: string[] = [];

  /** What the test itself sends (the page's requests aside), as the request log names them: `GET /v1/contacts`. */
  const sent: string[] = [];
  const client = (route: string, init: RequestInit = {}) => {
    sent.push(`${init.method ?? 'GET'} ${route}`);
    return fetch(`${mock.url}${route}`, {
      ...init,
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...init.headers },
    });
  };
  const loggedRequests = () => logged.map((line) => line.split(' ', 2).join(' '));
  const rows = () => page.locator('#log-rows tr');
  const contact = (username: string) => page.locator(`#contacts button[data-username="${username}"]`);

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'messaging-dashboard-'));
    mock = await listen({
      port: 0,
      contacts: 8,
      messages: 60,
      logRequests: true,
      log: (line) => logged.push(line),
    });
    browser = await launch(CHROMIUM);
    watched = await watchedPage(browser);
    ({ page } = watched);
  }, 60_000);

  /** The console's errors and warnings and the failed requests since the last look, forgotten once seen. */
  const sinceLastLook = () => ({ console: watched.console.splice(0), failed: watched.failed.splice(0) });

  afterEach(() => {
    expect(sinceLastLook()).toEqual({ console: [], failed: [] });
  });

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('serves the page, its script, its stylesheet and its icons without a token, with strict headers', async () => {
    const page = await fetch(`${mock.url}/__mock/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    for (const [file, type] of [
      ['/__mock/dashboard.js', 'text/javascript; charset=utf-8'],
      ['/__mock/dashboard.css', 'text/css; charset=utf-8'],
      ['/__mock/favicon.svg', 'image/svg+xml'],
      ['/favicon.ico', 'image/x-icon'],
    ]) {
      const res = await fetch(`${mock.url}${file}`);
      expect([
        res.status,
        res.headers.get('content-type'),
        res.headers.get('x-content-type-options'),
      ]).toEqual([200, type, 'nosniff']);
    }
    const bare = await fetch(`${mock.url}/__mock`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/__mock/']);
    // The data stays behind the token.
    sent.push('GET /__mock/state');
    expect((await fetch(`${mock.url}/__mock/state`)).status).toBe(401);
  });

  it('has an icon of its own, made by scripts/dashboard-icon.ts, and holds no emoji that a font may lack', () => {
    expect(readFileSync(ICON_FILES.svg, 'utf8')).toBe(iconSvg());
    expect(readFileSync(ICON_FILES.ico).equals(iconIco())).toBe(true);
    // An emoji shows as an empty box where no emoji font is installed: the page's icons are words.
    for (const file of ['index.html', 'dashboard.js', 'dashboard.css']) {
      const text = readFileSync(path.join(__dirname, '..', '..', 'dashboard', file), 'utf8');
      expect([file, text.match(/\p{Extended_Pictographic}/gu)]).toEqual([file, null]);
    }
  });

  it('shows a request made with the token in the log within a second', async () => {
    await page.goto(`${mock.url}/__mock/`);
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    await visible(page.locator('#contacts button'), 'the contacts of the world');
    const sent = Date.now();
    expect((await client('/v1/contacts?limit=3')).status).toBe(200);
    await visible(rows().filter({ hasText: '/v1/contacts?limit=3' }), 'the request in the log', 1000);
    expect(Date.now() - sent).toBeLessThanOrEqual(1000);
    await expect(rows().first().locator('.code').textContent()).resolves.toBe('200');
  }, 30_000);

  it('loads its icons as a browser does for its tab: the one the page names, and /favicon.ico', async () => {
    // Headless Chromium asks for no tab icon: the page loads each as an image, where a missing or
    // broken one would fail to load, in the console and in the failed requests.
    const icons = await page.evaluate(`Promise.all(
      [...document.querySelectorAll('link[rel~="icon"]')].map((link) => link.href)
        .concat(new URL('/favicon.ico', location.href).href)
        .map(async (href) => {
          const image = new Image();
          image.src = href;
          await image.decode();
          return [new URL(href).pathname, image.naturalWidth];
        }),
    )`);
    expect(icons).toEqual([
      ['/__mock/favicon.svg', 32],
      ['/favicon.ico', 32],
    ]);
  }, 30_000);

  it('sees a resource that fails to load, in the console and in the failed requests (so the checks can fail)', async () => {
    // What a missing /favicon.ico was: a 404 of the mock, here asked for by the test through the page.
    sent.push('GET /no-such-icon.png');
    const logLine = page.waitForEvent('console', (message) => message.type() === 'error');
    const answer = page.waitForEvent('response', (response) => response.url().endsWith('/no-such-icon.png'));
    await expect(
      page.evaluate(
        `(() => { const image = new Image(); image.src = '/no-such-icon.png'; return image.decode(); })()`,
      ),
    ).rejects.toThrow();
    await Promise.all([logLine, answer]);
    const seen = sinceLastLook();
    expect(seen.console).toEqual([expect.stringMatching(/^error: Failed to load resource: .* 404 /)]);
    expect(seen.failed).toEqual([`GET ${mock.url}/no-such-icon.png: 404`]);
  }, 30_000);

  it("keeps its polling out of the mock's request log", async () => {
    // Each poll waits for the one before it to be answered: at the third, two were answered, and
    // their lines (if they had any) written.
    for (let i = 0; i < 3; i++) await page.waitForRequest(/\/__mock\/requests\?since=/);
    // The log holds what the test sent (the dashboard's files, fetched above, are the dashboard's too).
    expect(loggedRequests()).toEqual(sent);
    expect(sent).toEqual(['GET /__mock/state', 'GET /v1/contacts?limit=3', 'GET /no-such-icon.png']);
  }, 30_000);

  it('shows a contact created through the API in the world, with its messages', async () => {
    const created = await client('/v1/contacts', {
      method: 'POST',
      body: JSON.stringify({
        username: 'dashboard_zed',
        phone_number: '+1 555 0100',
        display_name: 'Zed Dashboard',
      }),
    });
    expect(created.status).toBe(201);
    const { conversation_id } = (await created.json()) as { conversation_id: string };
    const message = await client('/v1/messages', {
      method: 'POST',
      body: JSON.stringify({
        conversation_id,
        message: 'Here is the plan',
        attachments: [{ filename: 'plan.pdf', file_url: 'https://example.com/plan.pdf' }],
      }),
    });
    const { id } = (await message.json()) as { id: string };
    await client(`/v1/messages/${id}`, {
      method: 'PUT',
      body: JSON.stringify({ reactions: { thumbs_up: ['dashboard_zed'] } }),
    });
    await visible(contact('dashboard_zed'), 'the created contact');
    await contact('dashboard_zed').click();
    await visible(page.locator('#messages .message').filter({ hasText: 'Here is the plan' }), 'its message');
    await visible(page.locator('#messages .chip[data-reaction="thumbs_up"]'), 'its reaction');
    // The attachment's icon is a word, shown: not an emoji that a machine without its font shows as a box.
    const attachment = page.locator('#messages .attachments li').filter({ hasText: 'plan.pdf' });
    await visible(attachment.locator('.label').filter({ hasText: /^File$/ }), "the attachment's label");
  }, 30_000);

  it('opens the details of a row with the keyboard, and closes them with Escape', async () => {
    const row = rows().filter({ hasText: 'POST' }).filter({ hasText: '/v1/messages' }).first();
    await row.focus();
    await page.keyboard.press('Enter');
    await visible(page.locator('#details'), 'the details');
    expect(await page.locator('#details-body').textContent()).toContain('Here is the plan');
    expect(await page.locator('#details-body h4').allTextContents()).toEqual(['Request body', 'Answer']);
    await page.keyboard.press('Escape');
    await page.locator('#details').waitFor({ state: 'hidden' });
    // Focus goes back to the row that was opened.
    expect(await page.evaluate("document.activeElement?.closest('#log-rows tr') !== null")).toBe(true);
  }, 30_000);

  it('filters the log by status class and by path', async () => {
    await client('/v1/contacts/nope');
    await visible(rows().filter({ hasText: '/v1/contacts/nope' }), 'the 404');
    await page.getByLabel('4xx').uncheck();
    await rows().filter({ hasText: '/v1/contacts/nope' }).waitFor({ state: 'detached' });
    await page.getByLabel('4xx').check();
    await page.getByLabel('Path contains').fill('nope');
    expect(await rows().count()).toBe(1);
    await page.getByLabel('Path contains').fill('');
  }, 30_000);

  it('forces the next two answers to 502 from the page, marks them, shows the switch used up, and resets its form', async () => {
    await page.getByLabel('Next answers').fill('2');
    await page.getByLabel('Status').fill('502');
    await page.getByRole('button', { name: 'Apply' }).click();
    await visible(
      page.locator('#switches-state').filter({ hasText: 'next 2 answers: 502' }),
      'the switch on',
    );
    expect((await client('/v1/contacts')).status).toBe(502);
    await visible(page.locator('#switches-state').filter({ hasText: 'next 1 answer: 502' }), 'one left');
    // Until it is used up, the form shows what was applied.
    expect([
      await page.getByLabel('Next answers').inputValue(),
      await page.getByLabel('Status').inputValue(),
    ]).toEqual(['2', '502']);
    expect((await client('/v1/contacts?limit=1')).status).toBe(502);
    await visible(
      page.locator('#switches-state').filter({ hasText: '502 switch used up' }),
      'the switch used up',
    );
    // Then the form is as a new switch starts: no count, the first status it offers.
    expect([
      await page.getByLabel('Next answers').inputValue(),
      await page.getByLabel('Status').inputValue(),
    ]).toEqual(['', '503']);
    expect((await client('/v1/contacts?limit=2')).status).toBe(200);
    await visible(rows().filter({ hasText: '/v1/contacts?limit=2' }), 'the real answer after');
    expect(await rows().locator('.badge').allTextContents()).toEqual(['forced: switch', 'forced: switch']);
  }, 30_000);

  it('resets the world: the created contact is gone', async () => {
    await page.getByRole('button', { name: 'Reset this world' }).click();
    await contact('dashboard_zed').waitFor({ state: 'detached', timeout: 5000 });
    const state = (await (await client('/__mock/state')).json()) as { contacts: { username: string }[] };
    expect(state.contacts.map((c) => c.username)).not.toContain('dashboard_zed');
  }, 30_000);

  it("shows the mock's error when an imported file is refused, and changes nothing", async () => {
    const bad = path.join(folder, 'bad.json');
    writeFileSync(bad, JSON.stringify({ contacts: 'none', messages: [] }));
    const before = await (await client('/__mock/state')).text();
    await page.getByLabel('Import a fixture').setInputFiles(bad);
    const message = page.locator('#world-message');
    await visible(message.filter({ hasText: 'Refused: 400' }), "the mock's refusal");
    expect(await message.textContent()).toMatch(/contacts/);
    expect(await (await client('/__mock/state')).text()).toBe(before);
    // The one refusal the page asked for is the one failed request, and the browser's one console line.
    const seen = sinceLastLook();
    expect(seen.failed).toEqual([`PUT ${mock.url}/__mock/state: 400`]);
    expect(seen.console).toEqual([expect.stringMatching(/^error: Failed to load resource: .* 400 /)]);
  }, 30_000);

  it('keeps a screenshot: a few requests, one opened, and a conversation', async () => {
    await client('/v1/messages?limit=2');
    // The contact with the longest conversation.
    const counts = (await page.locator('#contacts .count').allTextContents()).map((text) =>
      parseInt(text, 10),
    );
    await page
      .locator('#contacts button')
      .nth(counts.indexOf(Math.max(...counts)))
      .click();
    await visible(page.locator('#messages .message'), 'a conversation');
    await rows().filter({ hasText: 'POST' }).first().click();
    await visible(page.locator('#details'), 'the details');
    await page.screenshot({ path: SCREENSHOT });
  }, 30_000);

  it('made no request to any other origin, threw nothing, and left the request log to the API', () => {
    const origin = new URL(mock.url).origin;
    expect(watched.requested.length).toBeGreaterThan(10);
    expect(watched.requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    // The test's own requests, each a line; the page's files, icons, polling, reset, switches and import: not one.
    expect(loggedRequests()).toEqual(sent);
  });
});

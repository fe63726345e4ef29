import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { listen, type RunningServer } from '../../src/express/server';
import { visible } from '../demo/support';
import { findChromium, launch, watchedPage } from './chromium';

/**
 * The dashboard at /__mock/ in headless Chromium, against a running mock: what a client does
 * with a token shows in the page, and what the page does (reset, switches, import) reaches the
 * mock. With UPDATE_SCREENSHOTS=1 the screenshot goes to docs/images/dashboard.png.
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
  /** Every URL the page requested, and every error it threw. */
  let requested: string[];
  let pageErrors: string[];

  const client = (route: string, init: RequestInit = {}) =>
    fetch(`${mock.url}${route}`, {
      ...init,
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...init.headers },
    });
  const rows = () => page.locator('#log-rows tr');
  const contact = (username: string) => page.locator(`#contacts button[data-username="${username}"]`);

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'messaging-dashboard-'));
    mock = await listen({ port: 0, contacts: 8, messages: 60 });
    browser = await launch(CHROMIUM);
    ({ page, requested, pageErrors } = await watchedPage(browser));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('serves the page, its script and its stylesheet without a token, with strict headers', async () => {
    const page = await fetch(`${mock.url}/__mock/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    for (const [file, type] of [
      ['dashboard.js', 'text/javascript; charset=utf-8'],
      ['dashboard.css', 'text/css; charset=utf-8'],
    ]) {
      const res = await fetch(`${mock.url}/__mock/${file}`);
      expect([
        res.status,
        res.headers.get('content-type'),
        res.headers.get('x-content-type-options'),
      ]).toEqual([200, type, 'nosniff']);
    }
    const bare = await fetch(`${mock.url}/__mock`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/__mock/']);
    // The data stays behind the token.
    expect((await fetch(`${mock.url}/__mock/state`)).status).toBe(401);
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
    expect(await page.locator('#messages .attachments').textContent()).toContain('plan.pdf');
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

  it('forces the next two answers to 503 from the page, marks them, and shows the switch used up', async () => {
    await page.getByLabel('Next answers').fill('2');
    await page.getByLabel('Status').fill('503');
    await page.getByRole('button', { name: 'Apply' }).click();
    await visible(
      page.locator('#switches-state').filter({ hasText: 'next 2 answers: 503' }),
      'the switch on',
    );
    expect((await client('/v1/contacts')).status).toBe(503);
    await visible(page.locator('#switches-state').filter({ hasText: 'next 1 answer: 503' }), 'one left');
    expect((await client('/v1/contacts?limit=1')).status).toBe(503);
    await visible(
      page.locator('#switches-state').filter({ hasText: '503 switch used up' }),
      'the switch used up',
    );
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
  }, 30_000);

  it('keeps a screenshot: a few requests, one opened, and a conversation', async () => {
    await client('/v1/messages?limit=2');
    // The contact with the longest conversation.
    const counts = (await page.locator('#contacts .count').allTextContents()).map(Number);
    await page
      .locator('#contacts button')
      .nth(counts.indexOf(Math.max(...counts)))
      .click();
    await visible(page.locator('#messages .message'), 'a conversation');
    await rows().filter({ hasText: 'POST' }).first().click();
    await visible(page.locator('#details'), 'the details');
    await page.screenshot({ path: SCREENSHOT });
  }, 30_000);

  it('made no request to any other origin, and threw nothing', () => {
    const origin = new URL(mock.url).origin;
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { listen, type RunningServer } from '../../src/express/server';
import { findChromium, launch, watchedPage, type WatchedPage } from '../browser/chromium';
import { visible } from '../demo/support';
import staging from './staging-like.profile.json';

/**
 * The dashboard of a twin in headless Chromium: it says which conventions are in force, those taken
 * from the server profile and those it cannot mirror; the mock alone says they are its own. Its
 * own calls go to the control routes, which a twin's path prefix does not move.
 */
const CHROMIUM = findChromium();

describe(`The dashboard shows the conventions in force, and where worlds are kept (${CHROMIUM.description})`, () => {
  let browser: Browser;
  let watched: WatchedPage;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    browser = await launch(CHROMIUM);
    watched = await watchedPage(browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
  });

  const open = async (server: RunningServer) => {
    const { page } = watched;
    await page.goto(`${server.url}/__mock/`);
    await page.getByLabel('Token').fill('twin-dashboard');
    await page.getByRole('button', { name: 'Open' }).click();
    await visible(page.locator('#contacts button'), 'the contacts of the world');
    return page;
  };

  it("lists a twin's choices taken and not mirrored", async () => {
    const twin = await listen({ port: 0, conventions: staging as Record<string, unknown> });
    servers.push(twin);
    const page = await open(twin);
    await visible(page.locator('#conventions-taken li', { hasText: 'paging by page=' }), 'a choice taken');
    await expect(page.locator('#conventions').textContent()).resolves.toMatch(/The twin of a server/);
    await visible(
      page.locator('#conventions-not li', { hasText: 'Not mirrored: ' }).first(),
      'a choice not mirrored',
    );
    expect({ console: watched.console.splice(0), failed: watched.failed.splice(0) }).toEqual({
      console: [],
      failed: [],
    });
  }, 60_000);

  it('says the mock alone answers with its own conventions', async () => {
    const mock = await listen({ port: 0, contacts: 3, messages: 5 });
    servers.push(mock);
    const page = await open(mock);
    await visible(page.locator('#conventions', { hasText: "The mock's own conventions" }), "the mock's own");
    await expect(page.locator('#conventions-taken li').count()).resolves.toBe(0);
    await visible(page.locator('#kept', { hasText: 'Worlds live in memory only' }), 'where worlds are kept');
  }, 60_000);

  it('says a world kept in a data dir was on disk before it was opened, and in memory after', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-kept-'));
    const mock = await listen({ port: 0, contacts: 3, messages: 5, dataDir: dir, maxWorlds: 1 });
    servers.push(mock);
    // The token wrote, then another token's request took its place in memory.
    for (const token of ['twin-dashboard', 'another'])
      await fetch(`${mock.url}/v1/contacts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'username=kept&phone_number=%2B15550100',
      });
    const page = await open(mock);
    await visible(page.locator('#kept', { hasText: 'was on disk, and is loaded back now' }), 'on disk');
    await visible(page.locator('#contacts button[data-username="kept"]'), 'the contact it wrote');
    await page.getByRole('button', { name: 'Open' }).click();
    await visible(page.locator('#kept', { hasText: "this token's world was in memory" }), 'in memory');
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});

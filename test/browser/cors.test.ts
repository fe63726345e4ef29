import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { listen, type RunningServer } from '../../src';
import { CHROMIUM_ARGS, findChromium } from './chromium';

/**
 * A chat page served from another origin than the mock, in headless Chromium driven by
 * playwright-core: CHROMIUM_PATH, else the system's, else the one inside the @sparticuz/chromium
 * npm package (Playwright's own browser download is not reachable here). It lists contacts, sends
 * a message with fetch and an Authorization header (so the browser makes a CORS preflight), reads
 * it back, and shows a `Prefer: code=500` answer as an error.
 */
const CHROMIUM = findChromium();
const SCREENSHOT = path.join(__dirname, '..', '..', 'reports', 'browser-chat.png');

const page = (api: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Chat</title>
<style>body{font:15px system-ui;margin:24px;max-width:560px} li{padding:4px 0} .error{color:#b00020} .me{color:#1b5e20}</style>
</head><body>
<h1>Contacts</h1><ul id="contacts"></ul>
<h2>Conversation</h2><ul id="messages"></ul>
<p id="status">loading…</p>
<script>
const api = ${JSON.stringify(api)};
const headers = { Authorization: 'Bearer browser-user' };
async function call(path, init = {}) {
  const res = await fetch(api + path, { ...init, headers: { ...headers, ...(init.headers || {}) } });
  const body = res.status === 204 ? null : await res.json();
  if (!res.ok) throw new Error(res.status + ' ' + body.code + ': ' + body.message);
  return body;
}
window.run = async () => {
  const contacts = await call('/v1/contacts?limit=5&active=true');
  for (const c of contacts.data) {
    const li = document.createElement('li');
    li.textContent = (c.display_name || c.username) + ' (' + c.phone_number + ')';
    document.getElementById('contacts').append(li);
  }
  const first = contacts.data[0];
  const sent = await call('/v1/messages', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ conversation_id: first.conversation_id, message: 'Hello from the browser' }),
  });
  const back = await call('/v1/messages/' + sent.id);
  const li = document.createElement('li');
  li.className = 'me';
  li.textContent = back.message + ' (to ' + back.contact.username + ')';
  document.getElementById('messages').append(li);
  try {
    await call('/v1/contacts', { headers: { Prefer: 'code=500' } });
    document.getElementById('status').textContent = 'no error';
  } catch (error) {
    const status = document.getElementById('status');
    status.className = 'error';
    status.textContent = String(error.message);
  }
  return { contacts: contacts.data.length, sent: sent.id, readBack: back.message };
};
</script></body></html>`;

describe(`A chat page in a real browser, from another origin (${CHROMIUM.description})`, () => {
  let mock: RunningServer;
  const preflights: string[] = [];
  let site: Server;
  let siteUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    const executablePath = CHROMIUM.executablePath();
    mock = await listen({ seed: 42 });
    mock.server.on('request', (req) => {
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'])
        preflights.push(req.url ?? '');
    });
    const apiUrl = mock.url;
    site = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(page(apiUrl)));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    // "localhost" and 127.0.0.1 on another port: a different origin from the mock's.
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath,
      args: CHROMIUM_ARGS,
    });
  }, 60_000);

  // Whatever beforeAll got to: a hook that waited on a server never started would time out too.
  afterAll(async () => {
    await browser?.close();
    if (site) await new Promise((resolve) => site.close(resolve));
    await mock?.close();
  });

  it('lists contacts, sends and reads back a message, and shows a simulated 500', async () => {
    const tab = await browser.newPage();
    const consoleErrors: string[] = [];
    tab.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await tab.goto(siteUrl);
    const result = await tab.evaluate(() =>
      (globalThis as unknown as { run: () => Promise<Record<string, unknown>> }).run(),
    );
    expect(result).toEqual({
      contacts: 5,
      sent: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
      readBack: 'Hello from the browser',
    });
    expect(await tab.locator('#contacts li').count()).toBe(5);
    expect(await tab.locator('#messages li').textContent()).toContain('Hello from the browser');
    expect(await tab.locator('#status').textContent()).toMatch(/^500 internal: Simulated 500 answer/);
    // Fetch with an Authorization header is not "simple": the browser asked first, and the mock said yes.
    expect(preflights).toContain('/v1/contacts?limit=5&active=true');
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await tab.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    // The only console error is the failed 500 fetch that the page asked for.
    expect(consoleErrors.every((e) => /500/.test(e))).toBe(true);
  }, 30_000);
});

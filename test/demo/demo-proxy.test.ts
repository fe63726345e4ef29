import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProxy, type ProxyResult, type RunningProxy } from '../../contract-tests/proxy/proxy';
import type { RuleSet } from '../../contract-tests/rules/rules';
import { createApp } from '../../src/express/app';
import { findChromium, launch, watchedPage } from '../browser/chromium';
import { startWrapped } from '../contract-kit/harness';
import { ROGUES } from '../contract-kit/servers';
import { demoSite, visible } from './support';

/**
 * The demo pointed at a real server (`?api=<proxy URL>`), in headless Chromium, with
 * `messaging-contract proxy` between the page and the server: a QA session of clicks (the contact
 * list, a conversation, a message sent, a reaction, an error forced with the demo's switch) is
 * judged as it goes. In front of the mock the proxy finds nothing; in front of a server that gives
 * a message's contact a display_name, it names that rule.
 */
const CHROMIUM = findChromium();

describe(`The demo against a server through the proxy, in a real browser (${CHROMIUM.description})`, () => {
  const demo = demoSite('messaging-demo-proxy-', () => launch(CHROMIUM));

  /** Opens the demo on the proxy, clicks through a session, and gives the proxy's tally. */
  async function clickThrough(target: string, ruleSet: RuleSet, full: boolean) {
    const lines: string[] = [];
    const proxy: RunningProxy = await startProxy({ target, ruleSet, print: (line) => lines.push(line) });
    const { context, page, pageErrors } = await watchedPage(demo.browser);
    try {
      await page.goto(`${demo.site.url}?api=${encodeURIComponent(proxy.url)}`);
      await visible(page.locator('#contacts .contact'), 'the contact list', 20_000);
      expect(await page.locator('#mode').textContent()).toBe(`answered by ${proxy.url}`);
      await visible(page.locator('#messages .message'), 'the first conversation');
      if (full) {
        // Another conversation, then a message, a reaction to it, and a forced 503.
        await page.locator('#contacts .contact').nth(1).click();
        await visible(page.locator('#messages .message'), 'the second conversation');
        const text = 'Checked by the proxy on the way';
        await page.locator('#composer-input').fill(text);
        await page.locator('#send').click();
        const sent = page.locator('#messages .message.outgoing', { hasText: text });
        await visible(sent, 'the sent message');
        await sent.locator('.react').click();
        await visible(sent.locator('.chip[data-reaction="thumbs_up"]'), 'the 👍 chip');
        await page.locator('#simulate').click();
        await page.locator('#composer-input').fill('This one meets a 503');
        await page.locator('#send').click();
        await visible(page.locator('#banner'), 'the error banner');
        expect(await page.locator('#banner-title').textContent()).toBe('503 service_unavailable');
      }
    } finally {
      await context.close();
    }
    const result: ProxyResult = await proxy.close();
    expect(pageErrors).toEqual([]);
    return { result, lines };
  }

  it('finds no violation in a session against the mock (mock rule set)', async () => {
    const mock: Server = await new Promise((resolve) => {
      const server = createApp().listen(0, '127.0.0.1', () => resolve(server));
    });
    const target = `http://127.0.0.1:${(mock.address() as AddressInfo).port}`;
    try {
      const { result, lines } = await clickThrough(target, 'mock', true);
      expect(lines).toEqual([]);
      expect(result.exitCode).toBe(0);
      const checked = result.rules.filter((t) => t.checks > 0).map((t) => t.rule.id);
      // The preflights, the send, the reaction and the forced error were all seen and judged.
      expect(checked).toEqual(
        expect.arrayContaining([
          'mock.cors',
          'messages.send.new-message-defaults',
          'messages.update.add-reaction',
          'mock.error-body',
        ]),
      );
    } finally {
      await new Promise((resolve) => {
        mock.close(resolve);
        mock.closeAllConnections();
      });
    }
  }, 60_000);

  it("names messages.contact-fields against a server that gives a message's contact a display_name", async () => {
    const rogue = ROGUES.find((r) => r.rule === 'messages.contact-fields')!;
    const server = await startWrapped(rogue.make());
    try {
      const { result, lines } = await clickThrough(server.url, 'documented', false);
      expect(result.rules.filter((t) => t.violations > 0).map((t) => t.rule.id)).toEqual([
        'messages.contact-fields',
      ]);
      expect(lines[0]).toMatch(
        /^VIOLATION messages\.contact-fields \(§2\.2\): .*'s contact: carries display_name/,
      );
      expect(result.exitCode).toBe(1);
    } finally {
      await server.close();
    }
  }, 60_000);
});

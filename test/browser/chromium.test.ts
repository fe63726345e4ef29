import { chromium } from 'playwright-core';
import { findChromium, SYSTEM_CHROMIUMS } from './chromium';

/**
 * The browser test's Chromium comes from `npm install` when the machine has none: this drives the
 * packaged one on every run, also where a system Chromium would be chosen first.
 */
describe('the Chromium of the browser test', () => {
  it('is CHROMIUM_PATH when set, else the system one, else the one in the npm package', () => {
    const only =
      (...files: string[]) =>
      (file: string) =>
        files.includes(file);
    expect(
      findChromium(
        { CHROMIUM_PATH: '/opt/c/chrome' },
        only('/opt/c/chrome', SYSTEM_CHROMIUMS[0]!),
      ).executablePath(),
    ).toBe('/opt/c/chrome');
    expect(findChromium({}, only('/usr/bin/chromium-browser')).executablePath()).toBe(
      '/usr/bin/chromium-browser',
    );
    expect(findChromium({}, only()).description).toMatch(
      /^the Chromium of @sparticuz\/chromium \d+\.\d+\.\d+$/,
    );
  });

  it('refuses a CHROMIUM_PATH where there is no file, rather than trying another', () => {
    expect(() => findChromium({ CHROMIUM_PATH: '/nowhere/chromium' }, () => false)).toThrow(
      'CHROMIUM_PATH is /nowhere/chromium, and there is no file there.',
    );
  });

  it('from the npm package, unpacks and renders a page', async () => {
    const browser = await chromium.launch({
      executablePath: findChromium({}, () => false).executablePath(),
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      await page.setContent('<h1>Hello</h1><p id="n"></p><script>n.textContent = 6 * 7</script>');
      expect(await page.textContent('h1')).toBe('Hello');
      expect(await page.textContent('#n')).toBe('42');
      expect(browser.version()).toMatch(/^\d+\./);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

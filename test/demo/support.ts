import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { errors, type Browser, type Locator } from 'playwright-core';
import { buildDemo } from '../../scripts/build-demo';

/** What the browser tests of the demo share: a bare static server for the built demo, and waiting. */
const WAIT = 10_000;
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Waits for a locator to be visible, and says what was awaited when it never is. */
export async function visible(locator: Locator, what: string, timeout = WAIT): Promise<Locator> {
  try {
    await locator.first().waitFor({ state: 'visible', timeout });
  } catch (error) {
    if (error instanceof errors.TimeoutError)
      throw new Error(`The demo did not show ${what} within ${timeout} ms (${locator})`);
    throw error;
  }
  return locator;
}

export interface Site {
  /** Its root URL, ending in "/". */
  url: string;
  /** Every path it was asked for. */
  served: string[];
  close(): Promise<void>;
}

/** Serves the files of `folder` on 127.0.0.1 (a secure context, as a service worker needs), and nothing else. */
export async function serveFolder(folder: string): Promise<Site> {
  const served: string[] = [];
  const site: Server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://site').pathname;
    served.push(pathname);
    const file = path.join(folder, pathname === '/' ? 'index.html' : path.normalize(pathname));
    const type = TYPES[path.extname(file)];
    if (
      !file.startsWith(folder + path.sep) ||
      !type ||
      !statSync(file, { throwIfNoEntry: false })?.isFile()
    ) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-cache' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`,
    served,
    close: () => new Promise((resolve) => site.close(() => resolve())),
  };
}

/**
 * The demo built into a temporary folder and served by a bare static server, and a browser: made
 * before the tests of the describe block that calls this, and removed after them.
 */
export function demoSite(
  prefix: string,
  launchBrowser: () => Promise<Browser>,
): { site: Site; browser: Browser } {
  let folder: string | undefined;
  const made = {} as { site: Site; browser: Browser };
  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), prefix));
    await buildDemo(folder);
    made.site = await serveFolder(folder);
    made.browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await made.browser?.close();
    if (made.site) await made.site.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });
  return made;
}

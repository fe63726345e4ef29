import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Where Debian's, Ubuntu's and Google's packages put the browser, and where macOS and Windows keep it. */
export const SYSTEM_CHROMIUMS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
];

/** How the browser tests start Chromium: headless in a container, with nothing of its own going out. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const CACHE = path.join(__dirname, '..', '..', 'node_modules', '.cache', 'messaging-api-mock');

export interface FoundChromium {
  /** Which one, for the test's title: "CHROMIUM_PATH", "the system's" or the npm package. */
  description: string;
  /** Its executable; the packaged one is unpacked on the first call. */
  executablePath(): string;
}

/**
 * The Chromium that the browser test drives, so that `npm install && npm test` needs nothing
 * else: CHROMIUM_PATH when it is set; the system's when there is one; otherwise the Chromium that
 * the @sparticuz/chromium package carries inside its npm tarball (a dev dependency: `npm install`
 * brings it, with no download of its own), unpacked once under node_modules/.cache/.
 */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  exists: (file: string) => boolean = fs.existsSync,
): FoundChromium {
  const override = env.CHROMIUM_PATH;
  if (override) {
    if (!exists(override)) throw new Error(`CHROMIUM_PATH is ${override}, and there is no file there.`);
    return { description: `CHROMIUM_PATH (${override})`, executablePath: () => override };
  }
  const system = SYSTEM_CHROMIUMS.find((file) => exists(file));
  if (system) return { description: `the system's Chromium (${system})`, executablePath: () => system };
  // The packaged browser is a Linux build (x64 and arm64).
  if (process.platform !== 'linux')
    throw new Error(`No Chromium found (${SYSTEM_CHROMIUMS.join(', ')}): install one, or set CHROMIUM_PATH.`);
  const root = packagedChromiumRoot();
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  return {
    description: `the Chromium of @sparticuz/chromium ${version}`,
    executablePath: () =>
      unpack(path.join(root, 'bin', 'chromium.br'), path.join(CACHE, `chromium-${version}`)),
  };
}

function packagedChromiumRoot(): string {
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    throw new Error(
      'No Chromium: none on the system, CHROMIUM_PATH not set, and @sparticuz/chromium (a dev dependency) is not installed. Run npm install.',
    );
  }
  // …/@sparticuz/chromium/build/cjs/index.cjs; build/cjs has a package.json of its own.
  let dir = path.dirname(entry);
  while (path.basename(dir) !== 'chromium' || path.basename(path.dirname(dir)) !== '@sparticuz') {
    if (path.dirname(dir) === dir) throw new Error(`@sparticuz/chromium: no package folder above ${entry}`);
    dir = path.dirname(dir);
  }
  return dir;
}

/** Brotli-decompresses the browser once; a copy being written never stands at the final path. */
function unpack(compressed: string, dir: string): string {
  const target = path.join(dir, 'chromium');
  if (fs.existsSync(target)) return target;
  fs.mkdirSync(dir, { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  fs.writeFileSync(partial, zlib.brotliDecompressSync(fs.readFileSync(compressed)), { mode: 0o755 });
  fs.renameSync(partial, target);
  return target;
}

/** Headless Chromium, found as findChromium finds it, with the flags this machine needs. */
export function launch(found: FoundChromium): Promise<Browser> {
  return chromium.launch({ executablePath: found.executablePath(), args: CHROMIUM_ARGS });
}

/**
 * A page at a laptop's size, and for the checks: every URL it requests, every error it throws,
 * every error or warning in its console (the browser's own too, such as a resource that failed to
 * load), and every request that failed or was answered 4xx or 5xx.
 */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  requested: string[];
  pageErrors: string[];
  console: string[];
  failed: string[];
}

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  const page = await context.newPage();
  const watched: WatchedPage = { context, page, requested: [], pageErrors: [], console: [], failed: [] };
  page.on('request', (request) => watched.requested.push(request.url()));
  page.on('pageerror', (error) => watched.pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      watched.console.push(`${message.type()}: ${message.text()} (${message.location().url})`);
  });
  page.on('requestfailed', (request) =>
    watched.failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400)
      watched.failed.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
  });
  return watched;
}

import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The dashboard at `/__mock/`: a page, its script, its stylesheet and its icon (the folder
 * dashboard/ of the package), served without a token: the page asks for one, and sends it with
 * its calls to the control routes. Only the server serves them (src/express/app.ts writes what
 * this answers): the MSW adapter answers a page's API calls inside that page, where a page of the
 * mock's own has no place.
 */

/** The dashboard's files, by the path they are served at. */
export const DASHBOARD_FILES = {
  '/__mock/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/__mock/dashboard.js': { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  '/__mock/dashboard.css': { file: 'dashboard.css', type: 'text/css; charset=utf-8' },
  '/__mock/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  // Browsers ask for it on their own, for a page that names no icon (an answer of the API, say).
  '/favicon.ico': { file: 'favicon.ico', type: 'image/x-icon' },
} as const;

/** The header the dashboard's page sends with each of its calls, so that they can be told apart. */
export const DASHBOARD_HEADER = 'X-Mock-Dashboard';

/**
 * A request of the dashboard's own: for one of its files (or `/__mock`, which leads to them), or a
 * call to a control route that carries `X-Mock-Dashboard: 1`, as each call of its page does.
 */
export function fromDashboard(method: string, pathname: string, header: string | undefined): boolean {
  if (pathname.startsWith('/__mock/') && header === '1') return true;
  return (method === 'GET' || method === 'HEAD') && (pathname in DASHBOARD_FILES || pathname === '/__mock');
}

interface FileAnswer {
  status: number;
  headers: Record<string, string | number>;
  body: Buffer | undefined;
}

/** The dashboard's files, read once (they are static), and the answer to a request for one. */
export function dashboardFiles(): {
  answer(method: string, pathname: string, url: string): FileAnswer | undefined;
} {
  const folder = path.join(__dirname, '..', 'dashboard');
  const files = new Map(
    Object.entries(DASHBOARD_FILES).map(([at, { file, type }]) => [
      at,
      { type, body: readFileSync(path.join(folder, file)) },
    ]),
  );
  return {
    answer(method, pathname, url): FileAnswer | undefined {
      if (method !== 'GET' && method !== 'HEAD') return undefined;
      if (pathname === '/__mock') {
        // The page's links are relative to the folder: `/__mock` would take them to `/`.
        const at = url.indexOf('?');
        const bare = at === -1 ? url : url.slice(0, at);
        // No body: every answer of the mock is JSON or empty, and carries nosniff.
        return {
          status: 301,
          headers: {
            Location: `${bare}/${at === -1 ? '' : url.slice(at)}`,
            'Content-Length': 0,
            'X-Content-Type-Options': 'nosniff',
          },
          body: undefined,
        };
      }
      const found = files.get(pathname);
      if (found === undefined) return undefined;
      return {
        status: 200,
        headers: {
          'Content-Type': found.type,
          'Content-Length': found.body.length,
          'Cache-Control': 'no-cache',
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
          'Referrer-Policy': 'no-referrer',
        },
        body: found.body,
      };
    },
  };
}

/**
 * The demo's entry: Mock Service Worker starts in the page with the mock's handlers, and only
 * then does the chat render. Its requests to /api/v1/… are answered inside the browser, by the
 * same core as `npm start`; each token's world is kept in localStorage, so it outlives a reload.
 * (In another project, `createHandlers` comes from `messaging-api-mock/msw`.)
 *
 * With `?api=<base URL>` in the page's URL, e.g. `?api=http://127.0.0.1:4011`, the demo talks to a
 * real server instead: Mock Service Worker is not started, and the chat calls `<base URL>/v1/…`
 * with its token. That server may be the mock (`npm start`), or `messaging-contract proxy` in
 * front of any server, which then checks every exchange the chat makes.
 */
import { setupWorker } from 'msw/browser';
import { createHandlers } from '../src/msw';
import { Api } from './api';
import { ChatApp } from './app';

const TOKEN_KEY = 'messaging-demo:token';
const DEFAULT_TOKEN = 'demo-token';

/** The token the demo signs in with: fixed, and kept in localStorage so it can be changed there. */
function token(): string {
  const kept = localStorage.getItem(TOKEN_KEY);
  if (kept) return kept;
  localStorage.setItem(TOKEN_KEY, DEFAULT_TOKEN);
  return DEFAULT_TOKEN;
}

async function main(): Promise<void> {
  const api = new URLSearchParams(location.search).get('api');
  if (api) {
    new ChatApp(new Api(api.replace(/\/+$/, ''), token())).start(`answered by ${api}`);
    return;
  }
  const handlers = createHandlers({ baseUrl: '/api', storage: localStorage, seed: 1 });
  const worker = setupWorker(...handlers);
  await worker.start({ onUnhandledRequest: 'bypass', serviceWorker: { url: './mockServiceWorker.js' } });
  new ChatApp(new Api('/api', token())).start();
}

main().catch((error: unknown) => {
  const boot = document.getElementById('boot');
  if (boot) {
    boot.classList.add('failed');
    boot.textContent = `The mock could not start in this page: ${error instanceof Error ? error.message : String(error)}. Service workers need http://localhost or https.`;
  }
  const mode = document.getElementById('mode');
  if (mode) mode.textContent = 'not started';
});

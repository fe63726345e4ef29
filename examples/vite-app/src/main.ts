/**
 * With `?api=<base URL>` the app talks to that server (messaging-mock, or the real API);
 * without it, to the mock inside the page (MSW), loaded only then.
 */
import { Api } from './api';
import { showContacts } from './contacts';

const server = new URLSearchParams(location.search).get('api');
if (!server) await (await import('./mocks/browser')).startMock();
await showContacts(document.body, new Api(server ?? '/api', 'demo-token'));

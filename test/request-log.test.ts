import request from 'supertest';
import { createApp } from '../src/express/app';

/**
 * The request log (`logRequests`, a line a request) leaves out the dashboard's own requests: its
 * files, and the calls of its page, which carry `X-Mock-Dashboard: 1`. `logDashboard` logs them too.
 */
async function logOf(logDashboard: boolean | undefined): Promise<string[]> {
  const lines: string[] = [];
  const app = createApp({
    contacts: 2,
    messages: 0,
    logRequests: true,
    logDashboard,
    log: (l) => lines.push(l),
  });
  const auth = { Authorization: 'Bearer t' };
  const dashboard = { ...auth, 'X-Mock-Dashboard': '1' };
  await request(app).get('/__mock/');
  await request(app).get('/__mock');
  await request(app).get('/__mock/dashboard.js');
  await request(app).get('/__mock/favicon.svg');
  await request(app).get('/favicon.ico');
  await request(app).get('/__mock/requests?since=0').set(dashboard);
  await request(app).put('/__mock/switches').set(dashboard).send({ latency_ms: null });
  // The same calls without the header, and the header where the page never sends it.
  await request(app).get('/__mock/requests?since=0').set(auth);
  await request(app)
    .get('/__mock/switches')
    .set({ ...auth, 'X-Mock-Dashboard': 'yes' });
  await request(app).get('/v1/contacts?limit=1').set(dashboard);
  await request(app).post('/__mock/dashboard.js').set(auth);
  return lines.map((line) => line.replace(/ [\d.]+ ms$/, ''));
}

describe('The request log', () => {
  it("leaves out the dashboard's files and its page's calls, and logs every other request", async () => {
    expect(await logOf(undefined)).toEqual([
      'GET /__mock/requests?since=0 200',
      'GET /__mock/switches 200',
      'GET /v1/contacts?limit=1 200',
      'POST /__mock/dashboard.js 404',
    ]);
  });

  it("logs the dashboard's requests too with logDashboard (--log-dashboard)", async () => {
    expect(await logOf(true)).toEqual([
      'GET /__mock/ 200',
      'GET /__mock 301',
      'GET /__mock/dashboard.js 200',
      'GET /__mock/favicon.svg 200',
      'GET /favicon.ico 200',
      'GET /__mock/requests?since=0 200',
      'PUT /__mock/switches 200',
      'GET /__mock/requests?since=0 200',
      'GET /__mock/switches 200',
      'GET /v1/contacts?limit=1 200',
      'POST /__mock/dashboard.js 404',
    ]);
  });
});

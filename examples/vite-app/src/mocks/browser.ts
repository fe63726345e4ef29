/** The whole Messaging API inside the page: MSW's worker answers /api/v1/… with the mock's handlers. */
import { setupWorker } from 'msw/browser';
import { createHandlers } from 'messaging-api-mock/msw';

export async function startMock(): Promise<void> {
  const handlers = createHandlers({ baseUrl: '/api', storage: localStorage });
  await setupWorker(...handlers).start({ onUnhandledRequest: 'bypass', quiet: true });
}

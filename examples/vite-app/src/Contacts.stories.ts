import type { Meta, StoryObj } from '@storybook/html-vite';
import { createHandlers } from 'messaging-api-mock/msw';
import { Api } from './api';
import { showContacts } from './contacts';

// Each story's requests to /api/v1/… are answered by the mock inside Storybook's page: the
// addon (.storybook/main.ts) starts MSW, and each story's beforeEach gives it the mock's handlers.
const meta: Meta = {
  title: 'Contacts',
  render: () => {
    const root = document.createElement('div');
    root.innerHTML = `<p id="status">Loading…</p><ul id="contacts"></ul>
      <section id="conversation" hidden><h2 id="conversation-title"></h2><ol id="messages"></ol></section>`;
    void showContacts(root, new Api('/api', 'storybook'));
    return root;
  },
};
export default meta;

/** The default world: 25 contacts. */
export const Seeded: StoryObj = {
  beforeEach: ({ msw }) => msw.use(...createHandlers({ baseUrl: '/api' })),
};

/** A smaller world of another seed. */
export const FewContacts: StoryObj = {
  beforeEach: ({ msw }) =>
    msw.use(...createHandlers({ baseUrl: '/api', seed: 7, contacts: 3, messages: 10 })),
};

/** A server that refuses the app's token: the error state. */
export const Refused: StoryObj = {
  beforeEach: ({ msw }) => msw.use(...createHandlers({ baseUrl: '/api', tokens: ['someone-else'] })),
};

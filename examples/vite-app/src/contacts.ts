/** Renders the contacts and, on a click, the conversation with one of them. */
import { Api, ApiError } from './api';

export async function showContacts(root: HTMLElement, api: Api): Promise<void> {
  const status = root.querySelector<HTMLElement>('#status')!;
  const list = root.querySelector<HTMLUListElement>('#contacts')!;
  try {
    const page = await api.contacts();
    list.replaceChildren(
      ...page.data.map((contact) => {
        const item = document.createElement('li');
        const button = document.createElement('button');
        button.textContent = contact.display_name ?? contact.username;
        button.addEventListener(
          'click',
          () => void showConversation(root, api, button.textContent!, contact.conversation_id),
        );
        item.append(button);
        return item;
      }),
    );
    status.textContent = `${page.data.length} contacts`;
  } catch (error) {
    status.textContent =
      error instanceof ApiError
        ? `Could not load the contacts (${error.status}): ${error.message}`
        : String(error);
  }
}

async function showConversation(
  root: HTMLElement,
  api: Api,
  name: string,
  conversationId: string,
): Promise<void> {
  const page = await api.messages(conversationId);
  root.querySelector<HTMLElement>('#conversation-title')!.textContent = `With ${name}`;
  const items = page.data.map((message) => message.message);
  root.querySelector<HTMLOListElement>('#messages')!.replaceChildren(
    ...(items.length > 0 ? items : ['No messages yet.']).map((text) => {
      const item = document.createElement('li');
      item.textContent = text;
      return item;
    }),
  );
  root.querySelector<HTMLElement>('#conversation')!.hidden = false;
}

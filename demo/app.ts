import { RequestError, type Api, type Contact, type Message } from './api';
import {
  ago,
  clock,
  dayKey,
  dayLabel,
  fileSize,
  fullDate,
  hue,
  initials,
  nameOf,
  reactionLabel,
} from './format';

/** Who the demo's user is when it reacts: the API knows users only by their usernames. */
const ME = 'me';
/** The reaction that a message's reaction button adds. */
const QUICK_REACTION = 'thumbs_up';

const SENT_KEY = 'messaging-demo:sent';
const SELECTED_KEY = 'messaging-demo:selected';
const MAX_SENT = 1000;

type Child = Node | string | false | null | undefined;

/** A small element builder: `h('li', { class: 'x', onclick }, child, 'text')`. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, unknown> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      element.addEventListener(key.slice(2), value as EventListener);
    else if (key === 'class') element.className = String(value);
    else if (key === 'style') element.style.cssText = String(value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  element.append(...children.filter((child): child is Node | string => child != null && child !== false));
  return element;
}

/**
 * Whether this browser draws emoji in colour. Where no emoji font is installed an emoji is an empty
 * box (or a box with its code in it), drawn in the text's colour: only a real emoji has other colours.
 */
function canDrawEmoji(): boolean {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 24;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) return false;
  context.font = '20px sans-serif';
  context.textBaseline = 'top';
  context.fillStyle = '#000';
  context.fillText('\u{1F44D}', 0, 0);
  const pixels = context.getImageData(0, 0, 24, 24).data;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i] !== pixels[i + 1] || pixels[i + 1] !== pixels[i + 2]) return true;
  }
  return false;
}

const EMOJI_DRAWN = canDrawEmoji();
document.documentElement.classList.toggle('no-emoji', !EMOJI_DRAWN);
const reaction = (name: string) => reactionLabel(name, EMOJI_DRAWN);

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}`);
  return element as T;
}

function avatar(contact: Pick<Contact, 'id' | 'display_name' | 'username' | 'last_active_at'>, size = '') {
  return h(
    'span',
    { class: `avatar ${size}`, style: `--hue: ${hue(contact.id)}`, 'aria-hidden': 'true' },
    initials(nameOf(contact)),
    contact.last_active_at !== null && h('span', { class: 'dot' }),
  );
}

/**
 * The API names no sender for the user's own messages (a message's `contact` is the owner of its
 * conversation), so the demo remembers the ids of the messages it sent, to draw them on the right.
 */
class SentMessages {
  readonly #ids: string[];

  constructor() {
    try {
      const kept: unknown = JSON.parse(localStorage.getItem(SENT_KEY) ?? '[]');
      this.#ids = Array.isArray(kept) ? kept.filter((id): id is string => typeof id === 'string') : [];
    } catch {
      this.#ids = [];
    }
  }

  has(id: string): boolean {
    return this.#ids.includes(id);
  }

  add(id: string): void {
    this.#ids.push(id);
    this.#ids.splice(0, Math.max(0, this.#ids.length - MAX_SENT));
    localStorage.setItem(SENT_KEY, JSON.stringify(this.#ids));
  }

  clear(): void {
    this.#ids.length = 0;
    localStorage.removeItem(SENT_KEY);
  }
}

interface Conversation {
  contact: Contact;
  /** Oldest first, as they are shown. */
  messages: Message[];
  hasMore: boolean;
  /** How to ask for the messages before these (the client's, opaque). */
  older?: string;
  loading: boolean;
  loadingOlder: boolean;
  failed: boolean;
}

/** The chat: contacts on the left, the selected conversation on the right. */
export class ChatApp {
  readonly #api: Api;
  readonly #sent = new SentMessages();
  #contacts: Contact[] | undefined;
  #contactsFailed = false;
  #conversation: Conversation | undefined;
  #sending = false;
  readonly #reacting = new Set<string>();

  readonly #contactList = byId<HTMLUListElement>('contacts');
  readonly #contactCount = byId('contact-count');
  readonly #filter = byId<HTMLInputElement>('filter');
  readonly #main = byId('conversation');
  readonly #simulate = byId<HTMLButtonElement>('simulate');
  readonly #reset = byId<HTMLButtonElement>('reset');
  readonly #banner = byId('banner');

  // The conversation pane, built once: its header, its messages and the composer.
  readonly #header = h('header', { class: 'conversation-head' });
  readonly #messageList = h('ol', { class: 'messages', id: 'messages', 'aria-live': 'polite' });
  readonly #scroller = h('div', { class: 'scroller' }, this.#messageList);
  readonly #input = h('textarea', {
    id: 'composer-input',
    rows: '1',
    maxlength: '4000',
    placeholder: 'Write a message',
    'aria-label': 'Message',
  });
  readonly #send = h('button', { type: 'submit', class: 'button primary', id: 'send' }, 'Send');
  readonly #composer = h('form', { class: 'composer', id: 'composer' }, this.#input, this.#send);

  constructor(api: Api) {
    this.#api = api;
  }

  /** `mode` says who answers the chat's requests. */
  start(mode = 'answered in this page by Mock Service Worker'): void {
    byId('mode').textContent = mode;
    this.#main.replaceChildren(this.#header, this.#scroller, this.#composer);
    this.#filter.addEventListener('input', () => this.#renderContacts());
    this.#simulate.addEventListener('click', () => {
      this.#api.failNextRequest(!this.#api.failsNextRequest);
      this.#renderSimulate();
    });
    this.#reset.addEventListener('click', () => void this.#resetDemo());
    byId('banner-close').addEventListener('click', () => (this.#banner.hidden = true));
    this.#composer.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#sendMessage();
    });
    this.#input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.#sendMessage();
      }
    });
    this.#input.addEventListener('input', () => this.#fitInput());
    this.#simulate.disabled = false;
    this.#reset.disabled = false;
    this.#renderConversation();
    void this.#loadContacts();
  }

  // ── requests ──────────────────────────────────────────────────────────────────────────────

  async #loadContacts(): Promise<void> {
    this.#contacts = undefined;
    this.#contactsFailed = false;
    this.#renderContacts();
    try {
      const contacts = await this.#request(() => this.#api.listContacts());
      // The most recently active first, as a chat app lists them; never active ones last.
      this.#contacts = contacts.sort((a, b) => (b.last_active_at ?? -1) - (a.last_active_at ?? -1));
    } catch {
      this.#contactsFailed = true;
      this.#renderContacts();
      this.#renderConversation();
      return;
    }
    this.#renderContacts();
    const kept = localStorage.getItem(SELECTED_KEY);
    const contact = this.#contacts.find((c) => c.id === kept) ?? this.#contacts[0];
    if (contact) void this.#select(contact);
    else {
      this.#conversation = undefined;
      this.#renderConversation();
    }
  }

  async #select(contact: Contact): Promise<void> {
    localStorage.setItem(SELECTED_KEY, contact.id);
    const conversation: Conversation = {
      contact,
      messages: [],
      hasMore: false,
      loading: true,
      loadingOlder: false,
      failed: false,
    };
    this.#conversation = conversation;
    this.#renderContacts();
    this.#contactList.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
    this.#renderConversation();
    try {
      const page = await this.#request(() => this.#api.listMessages(contact.conversation_id));
      conversation.messages = page.data.reverse();
      conversation.hasMore = page.has_more && page.next !== undefined;
      conversation.older = page.next;
    } catch {
      conversation.failed = true;
    }
    conversation.loading = false;
    if (this.#conversation !== conversation) return;
    this.#renderConversation();
    this.#scrollToEnd();
    this.#input.focus();
  }

  async #loadOlder(): Promise<void> {
    const conversation = this.#conversation;
    const older = conversation?.older;
    if (!conversation || older === undefined || conversation.loadingOlder) return;
    conversation.loadingOlder = true;
    this.#renderMessages();
    const height = this.#scroller.scrollHeight;
    try {
      const page = await this.#request(() =>
        this.#api.listMessages(conversation.contact.conversation_id, older),
      );
      conversation.messages.unshift(...page.data.reverse());
      conversation.hasMore = page.has_more && page.next !== undefined;
      conversation.older = page.next;
    } catch {
      // The banner tells; the button stays for another try.
    }
    conversation.loadingOlder = false;
    if (this.#conversation !== conversation) return;
    this.#renderMessages();
    // Keep the messages that were in view where they were.
    this.#scroller.scrollTop += this.#scroller.scrollHeight - height;
  }

  async #sendMessage(): Promise<void> {
    const conversation = this.#conversation;
    const text = this.#input.value;
    if (!conversation || this.#sending || text.trim() === '') return;
    this.#sending = true;
    this.#renderComposer();
    try {
      const message = await this.#request(() =>
        this.#api.sendMessage(conversation.contact.conversation_id, text),
      );
      this.#sent.add(message.id);
      conversation.messages.push(message);
      this.#input.value = '';
      this.#fitInput();
    } catch {
      // The draft stays in the composer, to send again.
    }
    this.#sending = false;
    this.#renderComposer();
    if (this.#conversation === conversation) {
      this.#renderMessages();
      this.#scrollToEnd();
    }
    this.#input.focus();
  }

  async #react(message: Message, name: string): Promise<void> {
    if (this.#reacting.has(message.id)) return;
    this.#reacting.add(message.id);
    this.#renderMessages();
    try {
      const updated = await this.#request(() => this.#api.react(message.id, name, ME));
      const messages = this.#conversation?.messages ?? [];
      const at = messages.findIndex((m) => m.id === updated.id);
      if (at !== -1) messages[at] = updated;
    } catch {
      // The banner tells.
    }
    this.#reacting.delete(message.id);
    this.#renderMessages();
  }

  async #resetDemo(): Promise<void> {
    this.#reset.disabled = true;
    this.#reset.textContent = 'Resetting…';
    try {
      await this.#request(() => this.#api.reset());
      this.#sent.clear();
      this.#banner.hidden = true;
      this.#renderSimulate();
      await this.#loadContacts();
    } catch {
      // The banner tells.
    }
    this.#reset.disabled = false;
    this.#reset.textContent = 'Reset demo';
  }

  /** Runs a request; a refusal is shown in the banner, then thrown on to the caller. */
  async #request<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.#showError(error);
      throw error;
    } finally {
      this.#renderSimulate();
    }
  }

  // ── rendering ─────────────────────────────────────────────────────────────────────────────

  #showError(error: unknown): void {
    const title = byId('banner-title');
    const message = byId('banner-message');
    if (error instanceof RequestError) {
      title.textContent =
        error.status === 0 ? 'Network error' : `${error.status}${error.code ? ` ${error.code}` : ''}`;
      message.textContent = error.message;
    } else {
      title.textContent = 'Error';
      message.textContent = error instanceof Error ? error.message : String(error);
    }
    this.#banner.hidden = false;
  }

  #renderSimulate(): void {
    const armed = this.#api.failsNextRequest;
    this.#simulate.setAttribute('aria-pressed', String(armed));
    this.#simulate.textContent = armed ? 'Next request fails with 503' : 'Simulate an error';
  }

  #renderContacts(): void {
    const list = this.#contactList;
    list.setAttribute('aria-busy', String(this.#contacts === undefined && !this.#contactsFailed));
    if (this.#contactsFailed) {
      this.#contactCount.textContent = '';
      list.replaceChildren(
        h(
          'li',
          { class: 'list-note' },
          'Could not load the contacts. ',
          h('button', { type: 'button', class: 'link', onclick: () => void this.#loadContacts() }, 'Retry'),
        ),
      );
      return;
    }
    if (this.#contacts === undefined) {
      this.#contactCount.textContent = '';
      list.replaceChildren(
        ...Array.from({ length: 8 }, () =>
          h(
            'li',
            { class: 'skeleton-row', 'aria-hidden': 'true' },
            h('span', { class: 'skeleton circle' }),
            h('span', { class: 'skeleton line' }),
          ),
        ),
      );
      return;
    }
    this.#contactCount.textContent = String(this.#contacts.length);
    const query = this.#filter.value.trim().toLowerCase();
    const shown = this.#contacts.filter(
      (c) => !query || nameOf(c).toLowerCase().includes(query) || c.username.toLowerCase().includes(query),
    );
    const selected = this.#conversation?.contact.id;
    list.replaceChildren(
      ...shown.map((contact) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'contact',
              'data-contact-id': contact.id,
              'aria-current': contact.id === selected ? 'true' : undefined,
              onclick: () => void this.#select(contact),
            },
            avatar(contact),
            h(
              'span',
              { class: 'who' },
              h('span', { class: 'name' }, nameOf(contact)),
              h('span', { class: 'username' }, `@${contact.username}`),
            ),
            contact.last_active_at !== null &&
              h(
                'time',
                { class: 'when', title: `Last active ${fullDate(contact.last_active_at)}` },
                ago(contact.last_active_at),
              ),
          ),
        ),
      ),
    );
    if (shown.length === 0)
      list.append(h('li', { class: 'list-note' }, query ? 'No contact matches.' : 'No contacts yet.'));
  }

  #renderConversation(): void {
    const conversation = this.#conversation;
    this.#main.setAttribute(
      'aria-busy',
      String(conversation?.loading ?? (this.#contacts === undefined && !this.#contactsFailed)),
    );
    if (!conversation) {
      this.#header.replaceChildren(
        h('div', { class: 'who' }, h('span', { class: 'name' }, 'No conversation')),
      );
    } else {
      const { contact } = conversation;
      this.#header.replaceChildren(
        avatar(contact, 'large'),
        h(
          'div',
          { class: 'who' },
          h('span', { class: 'name', id: 'conversation-name' }, nameOf(contact)),
          h(
            'span',
            { class: 'meta' },
            `@${contact.username} · ${contact.phone_number} · `,
            contact.last_active_at === null
              ? 'never active'
              : h(
                  'time',
                  { title: fullDate(contact.last_active_at) },
                  `active ${ago(contact.last_active_at)} ago`,
                ),
          ),
        ),
      );
    }
    this.#renderMessages();
    this.#renderComposer();
  }

  #renderComposer(): void {
    const disabled = !this.#conversation || this.#sending;
    this.#input.disabled = disabled;
    this.#send.disabled = disabled;
    this.#send.textContent = this.#sending ? 'Sending…' : 'Send';
    this.#composer.setAttribute('aria-busy', String(this.#sending));
  }

  #renderMessages(): void {
    const conversation = this.#conversation;
    const list = this.#messageList;
    if (!conversation || conversation.loading) {
      list.replaceChildren(
        h(
          'li',
          { class: 'list-note' },
          conversation ? h('span', { class: 'spinner', 'aria-hidden': 'true' }) : null,
          conversation
            ? 'Loading messages…'
            : this.#contacts
              ? 'Pick a contact.'
              : this.#contactsFailed
                ? 'No contacts to show.'
                : 'Loading…',
        ),
      );
      return;
    }
    if (conversation.failed) {
      list.replaceChildren(
        h(
          'li',
          { class: 'list-note' },
          'Could not load the messages. ',
          h(
            'button',
            { type: 'button', class: 'link', onclick: () => void this.#select(conversation.contact) },
            'Retry',
          ),
        ),
      );
      return;
    }
    const items: Node[] = [];
    if (conversation.hasMore)
      items.push(
        h(
          'li',
          { class: 'older' },
          h(
            'button',
            {
              type: 'button',
              class: 'button subtle',
              disabled: conversation.loadingOlder,
              onclick: () => void this.#loadOlder(),
            },
            conversation.loadingOlder ? 'Loading…' : 'Load earlier messages',
          ),
        ),
      );
    if (conversation.messages.length === 0)
      items.push(
        h('li', { class: 'list-note' }, `No messages with ${nameOf(conversation.contact)} yet. Say hello!`),
      );
    let day: number | undefined;
    for (const message of conversation.messages) {
      const key = dayKey(message.created_at);
      if (key !== day) {
        day = key;
        items.push(h('li', { class: 'day' }, h('span', {}, dayLabel(message.created_at))));
      }
      items.push(this.#message(message));
    }
    list.replaceChildren(...items);
  }

  #message(message: Message): HTMLLIElement {
    const mine = this.#sent.has(message.id);
    const pending = this.#reacting.has(message.id);
    const reactions = message.reactions.flatMap((reaction) => Object.entries(reaction));
    const bubble = h(
      'div',
      { class: 'bubble' },
      h('p', { class: 'text' }, message.message),
      message.attachments.length > 0 &&
        h(
          'ul',
          { class: 'attachments' },
          ...message.attachments.map((attachment) =>
            h(
              'li',
              {},
              h(
                'a',
                { href: attachment.file_url, target: '_blank', rel: 'noopener noreferrer' },
                h('span', { class: 'label' }, 'File'),
                attachment.filename,
                attachment.file_size !== null &&
                  h('span', { class: 'size' }, ` · ${fileSize(attachment.file_size)}`),
              ),
            ),
          ),
        ),
      // A reaction moves updated_at as an edit does: the time of either is in the tooltip.
      h(
        'span',
        {
          class: 'stamp',
          title:
            `Sent ${fullDate(message.created_at)}` +
            (message.updated_at === null ? '' : `, updated ${fullDate(message.updated_at)}`),
        },
        clock(message.created_at),
      ),
    );
    const react = h(
      'button',
      {
        type: 'button',
        class: `react${pending ? ' pending' : ''}`,
        'aria-label': `React with ${QUICK_REACTION}`,
        title: `React with ${reaction(QUICK_REACTION)}`,
        disabled: pending,
        onclick: () => void this.#react(message, QUICK_REACTION),
      },
      pending ? h('span', { class: 'spinner small', 'aria-hidden': 'true' }) : `${reaction(QUICK_REACTION)}+`,
    );
    return h(
      'li',
      { class: `message ${mine ? 'outgoing' : 'incoming'}`, 'data-message-id': message.id },
      h('div', { class: 'line' }, bubble, react),
      reactions.length > 0 &&
        h(
          'div',
          { class: 'reactions' },
          ...reactions.map(([name, users]) =>
            h(
              'button',
              {
                type: 'button',
                class: `chip${users.includes(ME) ? ' mine' : ''}`,
                'data-reaction': name,
                title: `${name}: ${users.join(', ')}`,
                disabled: pending,
                onclick: () => void this.#react(message, name),
              },
              h('span', { class: 'emoji' }, reaction(name)),
              h('span', { class: 'n' }, String(users.length)),
            ),
          ),
        ),
    );
  }

  #scrollToEnd(): void {
    this.#scroller.scrollTop = this.#scroller.scrollHeight;
  }

  #fitInput(): void {
    this.#input.style.height = 'auto';
    this.#input.style.height = `${Math.min(this.#input.scrollHeight, 160)}px`;
  }
}

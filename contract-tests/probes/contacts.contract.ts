import {
  contactForm,
  createdId,
  makeContact,
  makeMessages,
  postContact,
  postMessage,
  useCleanup,
  type Contact,
} from '../model/data';
import { is2xx, send, type Exchange } from '../http/http';
import { walk } from '../model/paging';
import { rule, type RuleContext } from '../model/harness';
import { pastTheWindow } from '../model/settle';
import { CONTACT_FIELDS, MADE_UP_IDS, recordPath, updatedWith } from '../rules/resources';

useCleanup();

const UNKNOWN_ID = MADE_UP_IDS.contact;

rule(
  'contacts.fields',
  'a contact made, then retrieved and listed: the judge holds each answer to the fields of 2.1',
  async () => {
    const contact = await makeContact('fields', { display_name: 'Fields Name' });
    await send('GET', recordPath('contact', contact.id));
    await send('GET', '/v1/contacts');
  },
);

/** Retrieves the contact a create answered, where its answer names one. */
async function retrieveCreated(created: Exchange): Promise<void> {
  const id = createdId(created);
  if (id !== undefined) await send('GET', recordPath('contact', id));
}

rule(
  'contacts.create',
  'a contact created with display_name, then retrieved and listed: the judge holds the answer to the contact created, as sent, and every later view to it',
  async (t: RuleContext) => {
    const created = await postContact(contactForm('create', { display_name: 'Created Name' }));
    if (!is2xx(created)) t.notRun(`the server did not create the contact (${created.status})`);
    await retrieveCreated(created);
    await send('GET', '/v1/contacts');
  },
);

rule(
  'contacts.create.requires-username-and-phone-number',
  'a create without username, one without phone_number, then the contacts list to the username sent: the judge holds each to a refusal that leaves no trace',
  async () => {
    const form = contactForm('required');
    await postContact(form.filter(([k]) => k !== 'username'));
    await postContact(form.filter(([k]) => k !== 'phone_number'));
    // A refused request leaves no trace: the judge looks for that username in the list.
    const username = form.find(([k]) => k === 'username')?.[1];
    await walk(
      '/v1/contacts',
      {},
      { limit: 100, maxPages: 200, until: (items) => items.some((item) => item.username === username) },
    );
  },
);

rule(
  'contacts.create.display-name-defaults-to-username',
  'a contact created without display_name, then retrieved: the judge holds both answers to its username',
  async (t: RuleContext) => {
    const created = await postContact(contactForm('noname'));
    if (!is2xx(created))
      t.notRun(`the server did not create the contact (${created.status}); see contacts.create`);
    await retrieveCreated(created);
  },
);

rule(
  'contacts.create.last-active-at-null',
  "a contact created: the judge holds the create's answer to last_active_at null",
  async (t: RuleContext) => {
    const created = await postContact(contactForm('lastactive'));
    if (!is2xx(created))
      t.notRun(`the server did not create the contact (${created.status}); see contacts.create`);
  },
);

rule(
  'contacts.create.conversation-id',
  'two contacts created, the first retrieved: the judge holds each to a conversation_id of its own',
  async (t: RuleContext) => {
    const first = await postContact(contactForm('conv'));
    if (!is2xx(first))
      t.notRun(`the server did not create the contact (${first.status}); see contacts.create`);
    await postContact(contactForm('conv'));
    await retrieveCreated(first);
  },
);

rule(
  'contacts.retrieve',
  'a contact the kit made with a display name, then retrieved: the judge holds the retrieve to the contact its create answered',
  async () => {
    const contact = await makeContact('retrieve', { display_name: 'Retrieve Name' });
    await send('GET', recordPath('contact', contact.id));
  },
);

rule(
  'contacts.update.display-name',
  "a contact renamed, then retrieved: the judge holds the update's answer and the view to the new name",
  async () => {
    const contact = await makeContact('rename');
    await send('PUT', recordPath('contact', contact.id), { form: { display_name: 'Renamed Contact' } });
    await send('GET', recordPath('contact', contact.id));
  },
);

/**
 * A value unlike the contact's for each attribute an update does not take (rules/resources.ts):
 * one that looks right for the field where the document says what it holds, else one of its type.
 */
function otherValue(field: string, contact: Contact): string {
  const looksRight: Record<string, string> = {
    username: `${contact.username}x`,
    phone_number: '+1 555 0199 9999',
    avatar_url: 'https://example.com/avatars/changed.png',
    conversation_id: 'changedconversation0',
    last_active_at: '1700000000',
    created_at: '1600000000',
  };
  const type = CONTACT_FIELDS[field]!.type;
  return (
    looksRight[field] ??
    (type.startsWith('timestamp')
      ? '1600000000'
      : type === 'boolean'
        ? String(contact[field] !== true)
        : 'changed')
  );
}

rule(
  'contacts.update.only-display-name',
  'each attribute an update does not take, sent alone in an update, the contact retrieved after each: the judge holds each update to a refusal or an answer that changed nothing, and the retrieve to the contact as it was',
  async () => {
    const contact = await makeContact('readonly');
    await send('GET', recordPath('contact', contact.id));
    const updates = updatedWith(CONTACT_FIELDS);
    for (const attribute of Object.keys(CONTACT_FIELDS)) {
      if (attribute === 'id' || updates.includes(attribute)) continue;
      await send('PUT', recordPath('contact', contact.id), {
        form: { [attribute]: otherValue(attribute, contact) },
      });
      await send('GET', recordPath('contact', contact.id));
    }
  },
);

rule(
  'contacts.delete',
  'a contact the kit made, deleted, then retrieved: the judge holds the delete to a success and the retrieve to a refusal',
  async () => {
    const contact = await makeContact('delete');
    await send('DELETE', recordPath('contact', contact.id));
    await send('GET', recordPath('contact', contact.id));
  },
);

rule(
  'contacts.delete.cascades-conversation',
  'a contact with two messages deleted, then its messages retrieved, its conversation listed and a message sent into it: the judge holds each view to the conversation gone',
  async (t: RuleContext) => {
    const contact = await makeContact('cascade');
    const messages = await makeMessages(contact.conversation_id, 'cascade', 2);
    const removed = await send('DELETE', recordPath('contact', contact.id));
    if (!is2xx(removed))
      t.notRun(`the contact could not be deleted (${removed.status}); see contacts.delete`);
    // The contact itself is judged gone at once (contacts.delete); its messages, an indirect
    // effect, may take up to --settle-ms to go.
    await pastTheWindow();
    for (const message of messages) await send('GET', recordPath('message', message.id));
    await send('GET', '/v1/messages', { query: { conversation_id: contact.conversation_id } });
    await postMessage([
      ['conversation_id', contact.conversation_id],
      ['message', 'into a deleted conversation'],
    ]);
  },
);

rule(
  'contacts.unknown-id',
  'retrieve, update and delete of an id made up to name no contact: the judge holds each to a refusal',
  async () => {
    await send('GET', recordPath('contact', UNKNOWN_ID));
    await send('PUT', recordPath('contact', UNKNOWN_ID), { form: { display_name: 'Nobody' } });
    await send('DELETE', recordPath('contact', UNKNOWN_ID));
  },
);

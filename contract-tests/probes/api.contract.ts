import { contactForm, createdId, makeContact, makeMessage, postContact, useCleanup } from '../model/data';
import { is2xx, send } from '../http/http';
import { rule, type RuleContext } from '../model/harness';
import { reactionNames, reactionPair } from '../model/samples';
import { walk } from '../model/paging';
import { recordPath } from '../rules/resources';

useCleanup();

rule(
  'api.v1-prefix',
  'the contacts and messages lists asked for under /v1 with nothing: the judge holds each to an answer that is not "not found" nor a redirect',
  async () => {
    await send('GET', '/v1/contacts');
    await send('GET', '/v1/messages');
  },
);

rule(
  'api.auth-required',
  'every endpoint asked without Authorization, then the records and lists it named: the judge holds each to a refusal that changed nothing',
  async () => {
    const contact = await makeContact('auth', { display_name: 'Auth Kept' });
    const message = await makeMessage(contact.conversation_id, 'auth');
    const c = recordPath('contact', contact.id);
    const m = recordPath('message', message.id);
    const anonymous = { token: null } as const;
    await Promise.all([
      send('GET', '/v1/contacts', anonymous),
      send('POST', '/v1/contacts', { ...anonymous, form: contactForm('anon') }),
      send('GET', c, anonymous),
      send('PUT', c, { ...anonymous, form: { display_name: 'Changed Anonymously' } }),
      send('DELETE', c, anonymous),
      send('GET', '/v1/messages', anonymous),
      // The lists with their parameters too: a server may check the token on one form of a request only.
      send('GET', '/v1/contacts', { ...anonymous, query: { limit: 1 } }),
      send('GET', '/v1/contacts', { ...anonymous, query: { active: 'true' } }),
      send('GET', '/v1/messages', { ...anonymous, query: { conversation_id: contact.conversation_id } }),
      send('GET', '/v1/messages', { ...anonymous, query: { limit: 1 } }),
      send('POST', '/v1/messages', {
        ...anonymous,
        form: { conversation_id: contact.conversation_id, message: 'anonymous' },
      }),
      send('GET', m, anonymous),
      send('PUT', m, { ...anonymous, form: { message: 'changed anonymously' } }),
      send('PUT', m, { ...anonymous, form: [reactionPair(reactionNames()[0] ?? 'like', 'anonymous')] }),
      send('DELETE', m, anonymous),
    ]);
    // What they named, seen again with the token: the contact, its conversation, the list of all
    // messages walked to its end (within twenty pages), and the message.
    await send('GET', c);
    await send('GET', '/v1/messages', { query: { conversation_id: contact.conversation_id } });
    await walk('/v1/messages', {}, { limit: 100, maxPages: 20 });
    await send('GET', m);
  },
);

rule(
  'api.form-parameters',
  'a contact created and renamed with form bodies, then listed with a query parameter: the judge holds each write to a form body taken, or refused for its values alone',
  async (t: RuleContext) => {
    const created = await postContact(contactForm('form'));
    if (!is2xx(created))
      t.notRun(`the server did not create the contact (${created.status}); see contacts.create`);
    const id = createdId(created);
    if (id !== undefined)
      await send('PUT', recordPath('contact', id), { form: { display_name: 'Form Name' } });
    await send('GET', '/v1/contacts', { query: { limit: 2 } });
  },
);

rule(
  'api.json-objects',
  'a contact and a message made, listed, retrieved and updated: the judge holds every successful answer to a JSON object',
  async () => {
    const contact = await makeContact('json');
    const message = await makeMessage(contact.conversation_id, 'json');
    const c = recordPath('contact', contact.id);
    const m = recordPath('message', message.id);
    await send('GET', '/v1/contacts');
    await send('GET', c);
    await send('PUT', c, { form: { display_name: 'Json Name' } });
    await send('GET', '/v1/messages');
    await send('GET', m);
    await send('PUT', m, { form: { message: 'json edited' } });
  },
);

rule(
  'api.integer-timestamps',
  'contacts and messages made, updated, retrieved and listed: the judge holds every timestamp shown to an integer',
  async () => {
    await postContact(contactForm('time'));
    const contact = await makeContact('time2');
    await send('GET', recordPath('contact', contact.id));
    await send('GET', '/v1/contacts');
    const message = await makeMessage(contact.conversation_id, 'time');
    await send('PUT', recordPath('message', message.id), { form: { message: 'time edited' } });
    await send('GET', recordPath('message', message.id));
    await send('GET', '/v1/messages');
  },
);

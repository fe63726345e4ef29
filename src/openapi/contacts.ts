import { CONTACT } from '../resources/contact';
import {
  answer,
  body,
  createSchema,
  booleanQuery,
  operation,
  paging,
  parameterRef,
  queryParameter,
  recordPath,
  ref,
  refusals,
  worldFull,
  updateSchema,
  type Part,
  type Schema,
  type Texts,
} from './schemas';

/** The five contact operations of document 4.1, with the bodies input/operations.ts reads for them. */
export function contacts(): Part {
  return {
    paths: {
      '/v1/contacts': collection(),
      '/v1/contacts/{id}': recordPath('contacts', 'Contact', {
        retrieve: {
          summary: 'Retrieve a contact.',
          description:
            "The contact with this id. An id this token's world does not hold (another token's, or a deleted contact's) is 404 `not_found`.",
        },
        update: {
          summary: 'Update display_name, the only updatable attribute.',
          description:
            '`display_name` is the one parameter an update takes; any other is refused with 400 `parameter_unknown`. Sent empty (or null in JSON), it makes `display_name` null.',
        },
        delete: {
          summary: 'Delete a contact, its conversation and every message in it.',
          description:
            'The contact, its conversation and all of the conversation’s messages go in this one request (C18), for good: the contact and its messages are 404 `not_found` from then on, and so is its `conversation_id` in the list of messages.',
        },
      }),
    },
    parameters: {
      active: queryParameter(
        'active',
        booleanQuery(),
        'true: contacts that have been active; false: never active.',
      ),
    },
    schemas: { ContactCreate: createSchema(CONTACT), ContactUpdate: updateSchema(CONTACT) },
  };
}

const op = (operationId: string, fields: Texts & Schema) => operation('contacts', operationId, fields);

function collection(): Schema {
  return {
    get: op('listContacts', {
      summary: 'List contacts, newest first.',
      description:
        'A page of the contacts, the most recently created first (C7). `starting_after` pages forward and `ending_before` back (C8); `active=true` keeps the contacts that have been active, `active=false` those never active (C9).',
      parameters: [...paging(), parameterRef('active')],
      responses: { ...answer('200', 'A page of contacts.', 'ContactPage'), ...refusals() },
    }),
    post: op('createContact', {
      summary: 'Create a contact (and its conversation).',
      description:
        'Creates a contact and the one conversation held with it, whose id is the contact’s `conversation_id`. Without `display_name` (or with it empty) the contact shows its `username`; without `avatar_url`, a picture of its initials. A new contact’s `last_active_at` is null.',
      requestBody: body(ref('ContactCreate')),
      responses: { ...answer('201', 'The created contact.', 'Contact'), ...worldFull(), ...refusals() },
    }),
  };
}

import type { ContactCreateInput, ContactUpdateInput } from '../store/rules';
import { DISPLAY_NAME, PHONE_NUMBER, USERNAME } from '../store/rules';
import {
  answer,
  body,
  booleanQuery,
  inputSchema,
  nullable,
  operation,
  orEmpty,
  paging,
  parameterRef,
  queryParameter,
  recordPath,
  ref,
  refusals,
  stringSchema,
  urlSchema,
  worldFull,
  type Part,
  type Schema,
} from './schemas';

/** The five contact operations of document 4.1, with the bodies rules.ts reads for them. */
export function contacts(): Part {
  return {
    paths: {
      '/v1/contacts': collection(),
      '/v1/contacts/{id}': recordPath('contacts', 'Contact', {
        update: 'Update display_name, the only updatable attribute.',
        delete: 'Delete a contact, its conversation and every message in it.',
      }),
    },
    parameters: {
      active: queryParameter(
        'active',
        booleanQuery(),
        'true: contacts that have been active; false: never active.',
      ),
    },
    schemas: { ContactCreate: contactCreate(), ContactUpdate: contactUpdate() },
  };
}

const op = (operationId: string, fields: Schema) => operation('contacts', operationId, fields);

function collection(): Schema {
  return {
    get: op('listContacts', {
      summary: 'List contacts, newest first.',
      parameters: [...paging(), parameterRef('active')],
      responses: { ...answer('200', 'A page of contacts.', 'ContactPage'), ...refusals() },
    }),
    post: op('createContact', {
      summary: 'Create a contact (and its conversation).',
      requestBody: body(ref('ContactCreate')),
      responses: { ...answer('201', 'The created contact.', 'Contact'), ...worldFull(), ...refusals() },
    }),
  };
}

function contactCreate(): Schema {
  return inputSchema<ContactCreateInput>(
    {
      username: stringSchema(USERNAME),
      phone_number: stringSchema(PHONE_NUMBER),
      avatar_url: orEmpty(urlSchema(), 'Absent or empty: a picture of the initials.'),
      display_name: stringSchema(DISPLAY_NAME, 'Absent or empty: the username.'),
    },
    ['username', 'phone_number'],
  );
}

function contactUpdate(): Schema {
  return inputSchema<ContactUpdateInput>({
    display_name: nullable(stringSchema(DISPLAY_NAME, 'Empty or null: null.')),
  });
}

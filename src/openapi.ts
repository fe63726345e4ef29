import { ERROR_STATUS } from './errors';
import { BODY_LIMITS } from './core/body';
import { MAX_DELAY_MS } from './core/switches';
import { LIMITS } from './store/rules';
import {
  ATTACHMENT_FIELDS,
  CONTACT_FIELDS,
  MESSAGE_FIELDS,
  SENDER_FIELDS,
  STORED_MESSAGE_FIELDS,
} from './types';

/**
 * The OpenAPI 3.1 description of the API as this mock implements it: the document's endpoints
 * and fields, plus conventions C1-C20 (status codes, error object, cursors, field rules). Built
 * from the same constants as the code (error catalogue, limits), so the two cannot drift apart.
 */
export function openApiDocument(): Record<string, unknown> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const error = (description: string) => ({ description, content: json(ref('Error')) });
  const timestamp = { type: 'integer', description: 'Unix seconds (UTC).', minimum: 0 };
  const nullableTimestamp = {
    type: ['integer', 'null'],
    description: 'Unix seconds (UTC), or null.',
    minimum: 0,
  };
  const id = {
    type: 'string',
    description: 'Generated ids are 16 characters [A-Za-z0-9] (C6); a fixture may bring its own.',
    examples: ['WAz8eIbvDR60rouK'],
  };
  const body = (schema: unknown) => ({
    required: true,
    content: {
      'application/x-www-form-urlencoded': { schema },
      'application/json': { schema },
      'multipart/form-data': { schema },
    },
  });
  const refusals = {
    '400': error('A parameter is missing, invalid or unknown, or the body is malformed.'),
    '401': {
      ...error('No token, or not `Bearer <token>`.'),
      headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
    },
    '413': error(`The body is larger than ${BODY_LIMITS.label}.`),
    '415': error('The body is not form, JSON or multipart.'),
  };
  const full = { '409': error("The token's world has grown as much as one world may (world_full).") };
  const methodNotAllowed = { '405': error('The path exists; the method does not (see the Allow header).') };
  const page = (item: string) => ({
    type: 'object',
    required: ['has_more', 'data'],
    additionalProperties: false,
    properties: {
      has_more: {
        type: 'boolean',
        description: 'True when more items exist beyond this page, in the direction of travel.',
      },
      data: { type: 'array', items: ref(item) },
    },
  });
  const paging = [
    { $ref: '#/components/parameters/limit' },
    { $ref: '#/components/parameters/starting_after' },
    { $ref: '#/components/parameters/ending_before' },
  ];
  const attachmentInput = {
    type: 'object',
    required: ['filename', 'file_url'],
    additionalProperties: false,
    properties: {
      filename: { type: 'string', minLength: 1, maxLength: 255 },
      file_url: { type: 'string', format: 'uri', maxLength: 2048, description: 'An absolute http(s) URL.' },
      file_type: { type: 'string', default: 'application/octet-stream', description: 'A MIME type.' },
      file_size: { type: ['integer', 'null'], minimum: 0 },
    },
  };
  const attachmentsInput = { type: 'array', maxItems: LIMITS.attachmentsPerRequest, items: attachmentInput };
  const idParam = (what: string) => ({
    name: 'id',
    in: 'path',
    required: true,
    description: `Id of the ${what}.`,
    schema: { type: 'string' },
  });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Messaging API (mock)',
      version: '1.0.0',
      description:
        'Contacts and the messages of the conversations with them, as the mock serves them. Every /v1 operation ' +
        'requires `Authorization: Bearer <token>`; each token is a user with its own world. The `Prefer` header ' +
        `switches simulated errors (\`code=500\`) and delays (\`delay=1500\`, at most ${MAX_DELAY_MS} ms).`,
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'contacts' },
      { name: 'messages' },
      { name: 'mock', description: 'The mock’s own control routes.' },
    ],
    paths: {
      '/v1/contacts': {
        get: {
          tags: ['contacts'],
          operationId: 'listContacts',
          summary: 'List contacts, newest first.',
          parameters: [...paging, { $ref: '#/components/parameters/active' }],
          responses: {
            '200': { description: 'A page of contacts.', content: json(ref('ContactPage')) },
            ...refusals,
          },
        },
        post: {
          tags: ['contacts'],
          operationId: 'createContact',
          summary: 'Create a contact (and its conversation).',
          requestBody: body(ref('ContactCreate')),
          responses: {
            '201': { description: 'The created contact.', content: json(ref('Contact')) },
            ...full,
            ...refusals,
          },
        },
      },
      '/v1/contacts/{id}': {
        parameters: [idParam('contact')],
        get: {
          tags: ['contacts'],
          operationId: 'retrieveContact',
          responses: {
            '200': { description: 'The contact.', content: json(ref('Contact')) },
            '404': error('No such contact.'),
            ...refusals,
          },
        },
        put: {
          tags: ['contacts'],
          operationId: 'updateContact',
          summary: 'Update display_name, the only updatable attribute.',
          requestBody: { ...body(ref('ContactUpdate')), required: false },
          responses: {
            '200': { description: 'The updated contact.', content: json(ref('Contact')) },
            '404': error('No such contact.'),
            ...full,
            ...refusals,
          },
        },
        delete: {
          tags: ['contacts'],
          operationId: 'deleteContact',
          summary: 'Delete a contact, its conversation and every message in it.',
          responses: {
            '204': { description: 'Deleted; no body.' },
            '404': error('No such contact.'),
            ...refusals,
          },
        },
      },
      '/v1/messages': {
        get: {
          tags: ['messages'],
          operationId: 'listMessages',
          summary: 'List messages, newest first, of one conversation or of all.',
          parameters: [...paging, { $ref: '#/components/parameters/conversation_id' }],
          responses: {
            '200': { description: 'A page of messages.', content: json(ref('MessagePage')) },
            '404': error('No such conversation (param conversation_id).'),
            ...refusals,
          },
        },
        post: {
          tags: ['messages'],
          operationId: 'sendMessage',
          requestBody: body(ref('MessageSend')),
          responses: {
            '201': { description: 'The sent message.', content: json(ref('Message')) },
            '404': error('No such conversation (param conversation_id).'),
            ...full,
            ...refusals,
          },
        },
      },
      '/v1/messages/{id}': {
        parameters: [idParam('message')],
        get: {
          tags: ['messages'],
          operationId: 'retrieveMessage',
          responses: {
            '200': { description: 'The message.', content: json(ref('Message')) },
            '404': error('No such message.'),
            ...refusals,
          },
        },
        put: {
          tags: ['messages'],
          operationId: 'updateMessage',
          summary: 'Edit the text, add reactions, append attachments.',
          requestBody: { ...body(ref('MessageUpdate')), required: false },
          responses: {
            '200': { description: 'The updated message.', content: json(ref('Message')) },
            '404': error('No such message.'),
            ...full,
            ...refusals,
          },
        },
        delete: {
          tags: ['messages'],
          operationId: 'deleteMessage',
          summary: 'Delete a message permanently.',
          responses: {
            '204': { description: 'Deleted; no body.' },
            '404': error('No such message.'),
            ...refusals,
          },
        },
      },
      '/__mock/reset': {
        post: {
          tags: ['mock'],
          operationId: 'resetWorld',
          summary:
            "Put the token's world back to the seeded (or fixture) world; `all=true` for every token (admin token only).",
          parameters: [{ name: 'all', in: 'query', schema: { type: 'string', enum: ['true', 'false'] } }],
          responses: {
            '204': { description: 'Reset.' },
            '403': error('`all=true` from another token than the admin token (--admin-token).'),
            ...refusals,
            ...methodNotAllowed,
          },
        },
      },
      '/__mock/state': {
        get: {
          tags: ['mock'],
          operationId: 'getState',
          summary: "The token's world as a fixture document.",
          responses: { '200': { description: 'The world.', content: json(ref('Fixture')) }, ...refusals },
        },
        put: {
          tags: ['mock'],
          operationId: 'putState',
          summary: "Replace the token's world with a fixture document (JSON).",
          description:
            'The body is read as JSON whatever its Content-Type says, so that `curl -d @file` (sent as a form) and `curl -T file` (no type) work as well as `--data-binary @file -H "Content-Type: application/json"`.',
          requestBody: { required: true, content: json(ref('Fixture')) },
          responses: {
            '200': {
              description: 'The counts of the new world.',
              content: json({
                type: 'object',
                properties: { contacts: { type: 'integer' }, messages: { type: 'integer' } },
              }),
            },
            ...refusals,
          },
        },
      },
      '/__mock/requests': {
        get: {
          tags: ['mock'],
          operationId: 'listRequests',
          summary: "The token's most recent API requests, newest first.",
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } }],
          responses: {
            '200': {
              description: 'Recent requests.',
              content: json({
                type: 'object',
                properties: { data: { type: 'array', items: ref('JournalEntry') } },
              }),
            },
            ...refusals,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Any non-empty token, unless the mock was started with --token.',
        },
      },
      parameters: {
        limit: {
          name: 'limit',
          in: 'query',
          schema: {
            type: 'integer',
            minimum: 1,
            maximum: LIMITS.pageSizeMax,
            default: LIMITS.pageSizeDefault,
          },
        },
        starting_after: {
          name: 'starting_after',
          in: 'query',
          description: 'The items after this id, in list order (older).',
          schema: { type: 'string' },
        },
        ending_before: {
          name: 'ending_before',
          in: 'query',
          description: 'The items just before this id, in list order (newer).',
          schema: { type: 'string' },
        },
        active: {
          name: 'active',
          in: 'query',
          description: 'true: contacts that have been active; false: never active.',
          schema: { type: 'string', enum: ['true', 'false'] },
        },
        conversation_id: {
          name: 'conversation_id',
          in: 'query',
          description: 'Only this conversation.',
          schema: { type: 'string' },
        },
      },
      schemas: {
        Contact: {
          type: 'object',
          additionalProperties: false,
          required: [...CONTACT_FIELDS],
          properties: {
            id,
            username: { type: 'string', minLength: 1, maxLength: 64 },
            phone_number: { type: 'string', pattern: '^[0-9 +\\-().]{1,32}$' },
            avatar_url: { type: 'string', format: 'uri' },
            display_name: {
              type: ['string', 'null'],
              maxLength: 64,
              description: 'Defaults to the username; null when cleared.',
            },
            conversation_id: id,
            last_active_at: {
              ...nullableTimestamp,
              description: 'Null for a contact never active (a new one).',
            },
            created_at: timestamp,
          },
        },
        MessageContact: {
          type: 'object',
          additionalProperties: false,
          description: 'The contact of the conversation, without display_name and conversation_id.',
          required: [...SENDER_FIELDS],
          properties: {
            id,
            username: { type: 'string' },
            phone_number: { type: 'string' },
            avatar_url: { type: 'string' },
            last_active_at: nullableTimestamp,
            created_at: timestamp,
          },
        },
        Reaction: {
          type: 'object',
          description: 'One reaction name mapped to the usernames that reacted with it.',
          minProperties: 1,
          maxProperties: 1,
          propertyNames: { pattern: '^[a-z0-9_+-]{1,64}$' },
          additionalProperties: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        },
        Attachment: {
          type: 'object',
          additionalProperties: false,
          required: [...ATTACHMENT_FIELDS],
          properties: {
            id: { type: 'string' },
            message_id: { type: 'string' },
            filename: { type: 'string' },
            file_url: { type: 'string', format: 'uri' },
            file_type: { type: 'string' },
            file_size: { type: ['integer', 'null'], minimum: 0 },
            created_at: timestamp,
          },
        },
        Message: {
          type: 'object',
          additionalProperties: false,
          required: [...MESSAGE_FIELDS],
          properties: {
            id,
            conversation_id: id,
            contact: ref('MessageContact'),
            message: { type: 'string', minLength: 1, maxLength: 4000 },
            reactions: { type: 'array', items: ref('Reaction') },
            attachments: { type: 'array', items: ref('Attachment') },
            read_at: nullableTimestamp,
            created_at: timestamp,
            updated_at: nullableTimestamp,
          },
        },
        ContactPage: page('Contact'),
        MessagePage: page('Message'),
        ContactCreate: {
          type: 'object',
          required: ['username', 'phone_number'],
          additionalProperties: false,
          properties: {
            username: { type: 'string', minLength: 1, maxLength: 64 },
            phone_number: { type: 'string', pattern: '^[0-9 +\\-().]{1,32}$' },
            avatar_url: { type: 'string', format: 'uri', maxLength: 2048 },
            display_name: { type: 'string', maxLength: 64, description: 'Absent or empty: the username.' },
          },
        },
        ContactUpdate: {
          type: 'object',
          additionalProperties: false,
          properties: {
            display_name: { type: ['string', 'null'], maxLength: 64, description: 'Empty or null: null.' },
          },
        },
        MessageSend: {
          type: 'object',
          required: ['conversation_id', 'message'],
          additionalProperties: false,
          properties: {
            conversation_id: { type: 'string' },
            message: { type: 'string', minLength: 1, maxLength: 4000 },
            attachments: attachmentsInput,
          },
        },
        MessageUpdate: {
          type: 'object',
          additionalProperties: false,
          properties: {
            message: { type: 'string', minLength: 1, maxLength: 4000 },
            reactions: {
              description:
                'Form: reactions[<name>][]=<username>. JSON: [{"<name>": ["<username>"]}] or {"<name>": ["<username>"]}. Adds.',
              oneOf: [
                { type: 'array', items: ref('Reaction') },
                { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
              ],
            },
            attachments: attachmentsInput,
          },
        },
        Error: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'code', 'message'],
          properties: {
            type: { type: 'string', enum: ['invalid_request', 'api_error'] },
            code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
            message: { type: 'string' },
            param: { type: 'string', description: 'The parameter at fault, when there is one.' },
          },
        },
        Fixture: {
          type: 'object',
          required: ['contacts', 'messages'],
          additionalProperties: false,
          properties: {
            contacts: { type: 'array', items: ref('Contact') },
            messages: {
              type: 'array',
              items: {
                type: 'object',
                description: 'A message without its contact (derived from the conversation).',
                required: STORED_MESSAGE_FIELDS,
                additionalProperties: false,
                properties: {
                  id: { type: 'string' },
                  conversation_id: { type: 'string' },
                  message: { type: 'string' },
                  reactions: { type: 'array', items: ref('Reaction') },
                  attachments: { type: 'array', items: ref('Attachment') },
                  read_at: nullableTimestamp,
                  created_at: timestamp,
                  updated_at: nullableTimestamp,
                },
              },
            },
          },
        },
        JournalEntry: {
          type: 'object',
          required: ['time', 'method', 'path', 'status', 'duration_ms'],
          properties: {
            time: { type: 'string', format: 'date-time' },
            method: { type: 'string' },
            path: { type: 'string' },
            status: { type: 'integer' },
            duration_ms: { type: 'number' },
            body: {},
          },
        },
      },
    },
  };
}

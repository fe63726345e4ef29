import { STATE_BODY_LIMIT } from '../core/control';
import type { WorldData } from '../store/world';
import {
  booleanQuery,
  inputSchema,
  json,
  operation,
  queryParameter,
  ref,
  refusal,
  refusals,
  storedMessage,
  type Part,
  type Schema,
} from './schemas';

/** The mock's own routes: `/__mock/*` (core/control.ts) and this document. */
export function control(): Part {
  return {
    paths: {
      '/__mock/reset': { post: reset() },
      '/__mock/state': { get: getState(), put: putState() },
      '/__mock/requests': { get: requests() },
      '/openapi.json': { get: document() },
    },
    schemas: { Fixture: fixture(), JournalEntry: journalEntry() },
  };
}

const op = (operationId: string, fields: Schema) => operation('mock', operationId, fields);

function reset(): Schema {
  return op('resetWorld', {
    summary:
      "Put the token's world back to the seeded (or fixture) world; `all=true` for every token (admin token only).",
    parameters: [queryParameter('all', booleanQuery())],
    responses: {
      '204': { description: 'Reset.' },
      ...refusal('forbidden', '`all=true` from another token than the admin token (--admin-token).'),
      ...refusals(),
      ...refusal('method_not_allowed', 'The path exists; the method does not (see the Allow header).'),
    },
  });
}

function getState(): Schema {
  return op('getState', {
    summary: "The token's world as a fixture document.",
    responses: { '200': { description: 'The world.', content: json(ref('Fixture')) }, ...refusals() },
  });
}

function putState(): Schema {
  return op('putState', {
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
      ...refusals(STATE_BODY_LIMIT.label),
    },
  });
}

function requests(): Schema {
  return op('listRequests', {
    summary: "The token's most recent API requests, newest first.",
    // The least is core/control.ts's; the most is the app's journalSize option, which one
    // document, the same for every app, cannot know.
    parameters: [queryParameter('limit', { type: 'integer', minimum: 1 })],
    responses: {
      '200': {
        description: 'Recent requests.',
        content: json({
          type: 'object',
          properties: { data: { type: 'array', items: ref('JournalEntry') } },
        }),
      },
      ...refusals(),
    },
  });
}

function document(): Schema {
  return op('getOpenApiDocument', {
    summary: 'This document.',
    security: [],
    responses: { '200': { description: 'The OpenAPI 3.1 document.', content: json({ type: 'object' }) } },
  });
}

/** A fixture document (fixtures.ts validateFixture): a world as plain data. */
function fixture(): Schema {
  return inputSchema<WorldData>(
    {
      contacts: { type: 'array', items: ref('Contact') },
      messages: { type: 'array', items: storedMessage() },
    },
    ['contacts', 'messages'],
  );
}

/** The entries http/journal.ts records, typed by hand: their type is no value to read. */
function journalEntry(): Schema {
  return {
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
  };
}

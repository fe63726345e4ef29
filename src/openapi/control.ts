import type { WorldData } from '../store/world';
import {
  body,
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
  type Texts,
} from './schemas';
import { STATE_BODY_LIMIT, SWITCH_LIMITS } from '../input/limits';

/** The mock's own routes: `/__mock/*` (core/control.ts) and this document. */
export function control(): Part {
  return {
    paths: {
      '/__mock/reset': { post: reset() },
      '/__mock/state': { get: getState(), put: putState() },
      '/__mock/kept': { get: kept() },
      '/__mock/conventions': { get: conventions() },
      '/__mock/requests': { get: requests() },
      '/__mock/switches': { get: getSwitches(), put: putSwitches(), delete: deleteSwitches() },
      '/openapi.json': { get: document() },
    },
    schemas: {
      Fixture: fixture(),
      JournalEntry: journalEntry(),
      Switches: switches(),
      SwitchesInput: switchesInput(),
    },
  };
}

const op = (operationId: string, fields: Texts & Schema) => operation('mock', operationId, fields);

function reset(): Schema {
  return op('resetWorld', {
    summary:
      "Put the token's world back to the seeded (or fixture) world; `all=true` for every token (admin token only).",
    description:
      "Forgets what this token's requests changed: its world is the one the mock started with again, the generated world or the fixture of --fixtures, and its switches are off. `all=true` does so for every token, and takes the admin token (--admin-token).",
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
    description:
      "Every contact and message of the token's world as it now is, in the fixture format that `PUT /__mock/state` and --fixtures read: a snapshot to load again later.",
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
      ...refusal(
        'world_full',
        "The fixture makes a world larger than one token's world may hold (--max-world-mb); nothing changed.",
      ),
      ...refusals(STATE_BODY_LIMIT.label),
    },
  });
}

function kept(): Schema {
  return op('getKept', {
    summary: "Whether the token's world is in memory, and where worlds are kept beyond it.",
    description:
      "`kept`: `data dir` (`--data-dir`: a world the memory bounds shed stays on disk and comes back on its token's next request), `storage` (a browser's Web Storage, the MSW adapter's `storage`) or `memory` (a shed world is lost). `in_memory`: whether the token's world was in memory when asked; this request loads none. `worlds_in_memory`: how many tokens have their world in memory.",
    responses: {
      '200': {
        description: 'Where worlds are kept.',
        content: json({
          type: 'object',
          required: ['kept', 'in_memory', 'worlds_in_memory'],
          properties: {
            kept: { enum: ['data dir', 'storage', 'memory'] },
            in_memory: { type: 'boolean' },
            worlds_in_memory: { type: 'integer', minimum: 0 },
          },
        }),
      },
      ...refusals(),
    },
  });
}

function conventions(): Schema {
  return op('getConventions', {
    summary:
      "What fills the gaps of the document here: the mock's own conventions, or a server's (--conventions).",
    description:
      'With a server profile (`--conventions`, the `conventions` option), the mock is a twin of that server: `taken` lists each choice it answers with, `not_mirrored` each it cannot mirror and why, `in_force` the choices as read. Without one, `twin` is false and the mock’s own conventions C1–C20 (docs/api.md, part 2) hold.',
    responses: {
      '200': {
        description: 'The conventions in force.',
        content: json({
          type: 'object',
          required: ['twin', 'taken', 'not_mirrored', 'in_force'],
          properties: {
            twin: { type: 'boolean' },
            taken: { type: 'array', items: { type: 'string' } },
            not_mirrored: { type: 'array', items: { type: 'string' } },
            in_force: { type: ['object', 'null'], additionalProperties: true },
          },
        }),
      },
      ...refusals(),
    },
  });
}

function requests(): Schema {
  return op('listRequests', {
    summary: "The token's most recent API requests, newest first.",
    description:
      "The journal of the token's requests under /v1, newest first: each with its method, path, status and time, its query, body and answer (long ones cut short), and why an error answer was forced. Control routes are not journaled. `since` gives only the entries after the newest one a poller has seen.",
    // The least is core/control.ts's; the most is the app's journalSize option, which one
    // document, the same for every app, cannot know.
    parameters: [
      queryParameter('limit', { type: 'integer', minimum: 1 }),
      queryParameter(
        'since',
        { type: 'integer', minimum: 0 },
        'Only the entries after this `seq` (the newest `seq` seen), for polling.',
      ),
    ],
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

function getSwitches(): Schema {
  return op('getSwitches', {
    summary:
      "The token's switches: the latency added to its API answers, and the error its next answers are.",
    description:
      '`latency_ms` is null when no latency is switched on; `errors` is null when no error is, and otherwise gives the status and how many answers remain to be forced. The error switch turns itself off after its last forced answer.',
    responses: { '200': { description: 'The switches.', content: json(ref('Switches')) }, ...refusals() },
  });
}

function putSwitches(): Schema {
  return op('putSwitches', {
    summary: "Set the token's switches; a parameter left out stays as it is, null turns it off.",
    description:
      'The next `errors.count` API answers (under /v1) of this token are `errors.status`, the same error answer as `Prefer: code` (which wins when both apply); `latency_ms` is added to every API answer of this token. A refused request changes nothing. A form sends null as an empty value (`latency_ms=`).',
    requestBody: body(ref('SwitchesInput')),
    responses: {
      '200': { description: 'The switches, as they now stand.', content: json(ref('Switches')) },
      ...refusals(),
    },
  });
}

function deleteSwitches(): Schema {
  return op('deleteSwitches', {
    summary: "Turn the token's switches off.",
    description: "Both switches off at once: the token's API answers are real again, with no latency added.",
    responses: { '204': { description: 'Off.' }, ...refusals() },
  });
}

const latency = () => ({
  type: 'integer',
  minimum: SWITCH_LIMITS.latency.min,
  maximum: SWITCH_LIMITS.latency.max,
});
const errorStatus = () => ({
  type: 'integer',
  minimum: SWITCH_LIMITS.status.min,
  maximum: SWITCH_LIMITS.status.max,
});

/** `GET /__mock/switches` (store/worlds.ts TokenSwitches). */
function switches(): Schema {
  return {
    type: 'object',
    required: ['latency_ms', 'errors'],
    properties: {
      latency_ms: { anyOf: [latency(), { type: 'null' }] },
      errors: {
        anyOf: [
          {
            type: 'object',
            required: ['status', 'remaining'],
            properties: { status: errorStatus(), remaining: { type: 'integer', minimum: 1 } },
          },
          { type: 'null' },
        ],
      },
    },
  };
}

/** What `PUT /__mock/switches` takes (core/control.ts). */
function switchesInput(): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      latency_ms: { anyOf: [latency(), { type: 'null' }] },
      errors: {
        anyOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: ['status', 'count'],
            properties: {
              status: errorStatus(),
              count: { type: 'integer', minimum: SWITCH_LIMITS.count.min, maximum: SWITCH_LIMITS.count.max },
            },
          },
          { type: 'null' },
        ],
      },
    },
  };
}

function document(): Schema {
  return op('getOpenApiDocument', {
    summary: 'This document.',
    description:
      'The OpenAPI 3.1 description of the API and the control routes as this mock serves them, built from the same rules the mock checks. It needs no token.',
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

/** The entries src/core/api.ts records, typed by hand: their type is no value to read. */
function journalEntry(): Schema {
  return {
    type: 'object',
    required: ['seq', 'time', 'method', 'path', 'status', 'duration_ms', 'query', 'answer'],
    properties: {
      seq: {
        type: 'integer',
        minimum: 1,
        description: "Its place in the token's journal, one more each request.",
      },
      time: { type: 'string', format: 'date-time' },
      method: { type: 'string' },
      path: { type: 'string' },
      status: { type: 'integer' },
      duration_ms: { type: 'number' },
      query: {
        description:
          'The query parameters, `{}` when the URL has none (as its text when it could not be read).',
      },
      body: { description: 'The parsed body, or a note of its size when over 2,048 characters.' },
      answer: {
        description:
          "The answer's body: parsed when it is JSON of at most 2,048 characters, else its beginning as text; null when it has none.",
      },
      forced: {
        type: 'string',
        enum: ['prefer', 'switch'],
        description:
          'Why the answer is an error rather than the real one: `Prefer: code`, or the error switch.',
      },
    },
  };
}

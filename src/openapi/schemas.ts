import { ERROR_STATUS, type ErrorCode } from '../errors';
import { ID_LENGTH } from '../ids';
import { MAX_TIMESTAMP } from '../store/order';
import { HTTP_URL } from '../input/params';
import {
  ID,
  REACTION_NAME,
  RECORD_ID,
  USERNAME,
  type IntegerRule,
  type StringRule,
} from '../resources/formats';
import { createNames, updateNames } from '../input/operations';
import { ATTACHMENT } from '../resources/attachment';
import { CONTACT } from '../resources/contact';
import { requiredInput, type Field, type Table } from '../resources/field';
import { MESSAGE } from '../resources/message';
import { BODY_LIMITS, LIMITS, PAGE_SIZE } from '../input/limits';

/**
 * What the parts of the OpenAPI document share: schemas made from the field rules the code checks
 * (input/operations.ts, input/params.ts), the records as the API answers them, and the refusals. Every
 * call builds new objects, so that changing one document changes no other.
 */

export type Schema = Record<string, unknown>;

/** What one part of the API (contacts, messages, control routes) adds to the document. */
export interface Part {
  paths: Record<string, Schema>;
  parameters?: Record<string, Schema>;
  schemas?: Record<string, Schema>;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const parameterRef = (name: string): Schema => ({ $ref: `#/components/parameters/${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });

/**
 * A string as `checkString` checks it: the same lengths (JSON Schema counts code points, as
 * `charLength` does) and the same pattern, said in the words of the error message.
 */
export function stringSchema(rule: StringRule, note?: string): Schema {
  if (rule.pattern?.flags) throw new Error(`${rule.pattern} has flags, which JSON Schema cannot carry.`);
  const schema: Schema = { type: 'string' };
  if (rule.min !== undefined) schema.minLength = rule.min;
  schema.maxLength = rule.max;
  if (rule.pattern) schema.pattern = rule.pattern.source;
  const description = [rule.patternText && `Must be ${rule.patternText}.`, note].filter(Boolean).join(' ');
  if (description) schema.description = description;
  return schema;
}

/** A whole number as `checkInteger` checks it. */
export function integerSchema(rule: IntegerRule): Schema {
  return { type: 'integer', minimum: rule.min, maximum: rule.max };
}

export function nullable(schema: Schema): Schema {
  return { ...schema, type: [schema.type, 'null'] };
}

/** An optional field the code also takes empty, as "not given": what a form sends for a blank field. */
export function orEmpty(schema: Schema, description: string): Schema {
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as Schema[]) : [schema];
  return { anyOf: [...branches, { const: '' }], description };
}

/** A URL as `checkHttpUrl` checks it; format `uri` takes any scheme, so http(s) is said in words. */
export function urlSchema(): Schema {
  return { ...stringSchema(HTTP_URL, 'An absolute http(s) URL.'), format: 'uri' };
}

/** The fields of a request body: `T` is the input type the code reads it into (input/operations.ts). */
export function inputSchema<T>(
  properties: Record<keyof T & string, Schema>,
  required: (keyof T)[] = [],
): Schema {
  return {
    type: 'object',
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    properties,
  };
}

/** The body of a write: the same fields as a form, as JSON or as multipart. */
export function body(schema: Schema, required = true): Schema {
  return {
    required,
    content: {
      'application/x-www-form-urlencoded': { schema },
      'application/json': { schema },
      'multipart/form-data': { schema },
    },
  };
}

export function queryParameter(name: string, schema: Schema, description?: string): Schema {
  return { name, in: 'query', ...(description === undefined ? {} : { description }), schema };
}

/** The code compares the text with "true" and "false": a query string carries no JSON boolean. */
export function booleanQuery(): Schema {
  return { type: 'string', enum: ['true', 'false'] };
}

/** The id in a record's path: looked up as it is, so any string; an unknown one is 404. */
function idParameter(what: string): Schema {
  return {
    name: 'id',
    in: 'path',
    required: true,
    description: `Id of the ${what}.`,
    schema: { type: 'string' },
  };
}

/** The query parameters of a page (input/operations.ts pageQuery), shared by both lists. */
export function pagingParameters(): Record<string, Schema> {
  return {
    limit: queryParameter('limit', { ...integerSchema(PAGE_SIZE), default: LIMITS.pageSizeDefault }),
    starting_after: queryParameter(
      'starting_after',
      stringSchema(ID),
      'The items after this id, in list order (older).',
    ),
    ending_before: queryParameter(
      'ending_before',
      stringSchema(ID),
      'The items just before this id, in list order (newer).',
    ),
  };
}

export function paging(): Schema[] {
  return Object.keys(pagingParameters()).map(parameterRef);
}

/** What every operation says of itself: a one-line summary (a title) and a description of what it does. */
export interface Texts {
  summary: string;
  description: string;
}

export function operation(tag: string, operationId: string, fields: Texts & Schema): Schema {
  return { tags: [tag], operationId, ...fields };
}

/** A success that answers a record or a page: `status` is one of convention C1's (200, 201). */
export function answer(status: string, description: string, schema: string): Record<string, Schema> {
  return { [status]: { description, content: json(ref(schema)) } };
}

/** A refusal, under the HTTP status its code has in the error catalogue. */
export function refusal(code: ErrorCode, description: string, extra: Schema = {}): Record<string, Schema> {
  return { [ERROR_STATUS[code]]: { description, content: json(ref('Error')), ...extra } };
}

/** What any operation may be refused with: its parameters, its token, its body (of at most `bodyLimit`). */
export function refusals(bodyLimit: string = BODY_LIMITS.label): Record<string, Schema> {
  return {
    ...refusal('parameter_invalid', 'A parameter is missing, invalid or unknown, or the body is malformed.'),
    ...refusal('missing_token', 'No token, or not `Bearer <token>`.', {
      headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
    }),
    ...refusal('body_too_large', `The body is larger than ${bodyLimit}.`),
    ...refusal('unsupported_media_type', 'The body is not form, JSON or multipart.'),
  };
}

export function worldFull(): Record<string, Schema> {
  return refusal('world_full', "The token's world has grown as much as one world may (world_full).");
}

/**
 * Retrieve, update and delete of one record by id, as core/routes.ts collectionRoutes serves
 * them for both resources: 404 for an unknown id, the update's body named `<Record>Update`.
 */
export function recordPath(
  tag: string,
  record: 'Contact' | 'Message',
  texts: { retrieve: Texts; update: Texts; delete: Texts },
): Schema {
  const name = record.toLowerCase();
  const op = (verb: string, fields: Texts & Schema) => operation(tag, `${verb}${record}`, fields);
  const unknown = () => refusal('not_found', `No such ${name}.`);
  return {
    parameters: [idParameter(name)],
    get: op('retrieve', {
      ...texts.retrieve,
      responses: { ...answer('200', `The ${name}.`, record), ...unknown(), ...refusals() },
    }),
    put: op('update', {
      ...texts.update,
      requestBody: body(ref(`${record}Update`), false),
      responses: {
        ...answer('200', `The updated ${name}.`, record),
        ...unknown(),
        ...worldFull(),
        ...refusals(),
      },
    }),
    delete: op('delete', {
      ...texts.delete,
      responses: { '204': { description: 'Deleted; no body.' }, ...unknown(), ...refusals() },
    }),
  };
}

/** Unix seconds, within the bounds that fixtures.ts checks (the most keeps list keys exact, store/order.ts). */
function timestamp(description: string): Schema {
  return { type: 'integer', description, minimum: 0, maximum: MAX_TIMESTAMP };
}

/** A record's id: a fixture's may be any RECORD_ID; the mock's own are ID_LENGTH characters of [A-Za-z0-9]. */
function recordId(): Schema {
  return {
    ...stringSchema(
      RECORD_ID,
      `Generated ids are ${ID_LENGTH} characters [A-Za-z0-9] (C6); a fixture may bring its own.`,
    ),
    examples: ['WAz8eIbvDR60rouK'],
  };
}

/**
 * A field's value as its type says, with `note` as its description: a record's field (with the
 * table's note) or a request's (with what the request's omission means).
 */
function valueSchema(field: Field<unknown>, note: string | undefined): Schema {
  switch (field.type) {
    case 'id':
      return recordId();
    case 'text':
      return stringSchema(field.rule as StringRule, note);
    case 'url':
      return urlSchema();
    case 'timestamp':
      return timestamp(note ?? (field.nullable ? 'Unix seconds (UTC), or null.' : 'Unix seconds (UTC).'));
    case 'integer':
      return integerSchema(field.rule as IntegerRule);
    case 'boolean':
      return { type: 'boolean', ...(note === undefined ? {} : { description: note }) };
    case 'sender':
      return ref('MessageContact');
    case 'reactions':
      return { type: 'array', items: ref('Reaction') };
    case 'attachments':
      return { type: 'array', items: ref('Attachment') };
  }
}

function fieldSchema(field: Field<unknown>): Schema {
  const schema = valueSchema(field, field.note);
  return field.nullable ? nullable(schema) : schema;
}

/** A record: exactly the fields of its table that `keep` keeps, in that order, all of them present. */
function record(
  table: Table,
  keep: (field: Field<unknown>) => boolean = () => true,
  description?: string,
): Schema {
  const fields = Object.keys(table).filter((name) => keep(table[name]!));
  return {
    type: 'object',
    additionalProperties: false,
    ...(description === undefined ? {} : { description }),
    required: fields,
    properties: Object.fromEntries(fields.map((name) => [name, fieldSchema(table[name]!)])),
  };
}

/** A message as a fixture holds it, without its contact. */
export function storedMessage(): Schema {
  return record(
    MESSAGE,
    (field) => field.stored,
    'A message without its contact (derived from the conversation).',
  );
}

/** How a request sends a field: as its type says, as text in a form, so a boolean as "true" too. */
function inputValue(field: Field<unknown>, note: string | undefined): Schema {
  if (field.type !== 'boolean') return valueSchema(field, note);
  return {
    anyOf: [{ type: 'boolean' }, booleanQuery()],
    ...(note === undefined ? {} : { description: note }),
  };
}

/** Does the field's value take the empty text? A form's blank field is sent as one. */
function takesEmpty(field: Field<unknown>): boolean {
  const rule = field.rule as StringRule | undefined;
  return field.type === 'text' && (rule?.min ?? 0) === 0 && rule?.pattern === undefined;
}

/**
 * The body of a create, from the table: the required fields, and the optional ones with what
 * their absence means (a blank one, which a form sends for "not given", means the same).
 */
export function createSchema(table: Table): Schema {
  const names = createNames(table);
  const properties = Object.fromEntries(
    names.map((name) => {
      const field = table[name]!;
      const create = field.create;
      if (create.by !== 'input' || create.required) return [name, inputValue(field, undefined)];
      return [
        name,
        takesEmpty(field)
          ? inputValue(field, create.note)
          : orEmpty(inputValue(field, undefined), create.note),
      ];
    }),
  );
  return inputSchema<Record<string, unknown>>(
    properties,
    names.filter((name) => requiredInput(table[name]!)),
  );
}

/** The body of an update, from the table: every updatable field, none required. */
export function updateSchema(table: Table): Schema {
  return inputSchema<Record<string, unknown>>(
    Object.fromEntries(
      updateNames(table).map((name) => {
        const field = table[name]!;
        const schema = inputValue(field, field.update!.note);
        return [name, field.nullable ? nullable(schema) : schema];
      }),
    ),
  );
}

/** The usernames of one reaction, each checked as a username. */
export function reactionUsernames(): Schema {
  return { type: 'array', items: stringSchema(USERNAME) };
}

function reaction(): Schema {
  return {
    type: 'object',
    description: 'One reaction name mapped to the usernames that reacted with it.',
    // One name an object: the shape of types.ts Reaction, as fixtures.ts checks it.
    minProperties: 1,
    maxProperties: 1,
    propertyNames: stringSchema(REACTION_NAME),
    additionalProperties: { ...reactionUsernames(), uniqueItems: true },
  };
}

function page(item: string): Schema {
  return {
    type: 'object',
    required: ['has_more', 'data'],
    additionalProperties: false,
    properties: {
      has_more: {
        type: 'boolean',
        description: 'True when more items exist beyond this page, in the direction of travel.',
      },
      data: { type: 'array', maxItems: PAGE_SIZE.max, items: ref(item) },
    },
  };
}

function errorObject(): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'code', 'message'],
    properties: {
      // The two of ApiErrorBody['type'] (types.ts): a type, which the document cannot read.
      type: { type: 'string', enum: ['invalid_request', 'api_error'] },
      code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
      message: { type: 'string' },
      param: { type: 'string', description: 'The parameter at fault, when there is one.' },
    },
  };
}

/** The records the API answers with, its pages and its error object. */
export function recordSchemas(): Record<string, Schema> {
  return {
    Contact: record(CONTACT),
    MessageContact: record(
      CONTACT,
      (field) => field.sender,
      'The contact of the conversation, without display_name and conversation_id.',
    ),
    Reaction: reaction(),
    Attachment: record(ATTACHMENT),
    Message: record(MESSAGE),
    ContactPage: page('Contact'),
    MessagePage: page('Message'),
    Error: errorObject(),
  };
}

import {
  describePaging,
  formInWords,
  MOCK_PAGING,
  tellsDeleted,
  type Conventions,
  type Kind,
  type ReadProfile,
} from './profile';
import { ref, type Schema } from '../openapi/schemas';
import { errorSchema, placeOwn, twinRecords } from './document-records';
import { LIMITS } from '../input/limits';

/**
 * The OpenAPI document of a twin (`--conventions`): the mock's document, rewritten where the
 * server's profile fills the document's gaps otherwise, as src/twin/ answers them: the path
 * prefix, each operation's success status and delete answer, the content type, the statuses of the
 * error cases and the error body, the paging parameter, the bounds of `limit` and the next-page
 * key or header, the list order, the timestamp unit, the id formats, the default avatar, the
 * reactions and the attachments. The control routes (`/__mock/…`) stay the mock's, and so do the
 * records they carry: those keep the mock's shapes under the names `Mock<Name>`.
 */

/** The API's answers whose shape the twin changes; the control routes keep the mock's. */
const API_SCHEMAS = ['Contact', 'MessageContact', 'Message', 'Reaction', 'Attachment', 'Error'];
const OPERATIONS: Record<string, { kind: Kind; op: 'list' | 'create' | 'retrieve' | 'update' | 'delete' }> = {
  listContacts: { kind: 'contacts', op: 'list' },
  createContact: { kind: 'contacts', op: 'create' },
  retrieveContact: { kind: 'contacts', op: 'retrieve' },
  updateContact: { kind: 'contacts', op: 'update' },
  deleteContact: { kind: 'contacts', op: 'delete' },
  listMessages: { kind: 'messages', op: 'list' },
  sendMessage: { kind: 'messages', op: 'create' },
  retrieveMessage: { kind: 'messages', op: 'retrieve' },
  updateMessage: { kind: 'messages', op: 'update' },
  deleteMessage: { kind: 'messages', op: 'delete' },
};
const METHODS = ['get', 'post', 'put', 'delete'];

type Responses = Record<string, Schema>;
const isObject = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Rewrites the mock's document (a fresh one: it is changed in place) for the twin of `profile`. */
export function twinDocument(document: Schema, profile: ReadProfile): Schema {
  const c = profile.conventions;
  const components = document.components as { schemas: Schema; parameters: Schema };
  const schemas = components.schemas as Record<string, Schema>;
  keepMockShapes(document, schemas);

  const info = document.info as Schema;
  info.title = 'Messaging API (twin)';
  info.description =
    `${info.description as string} This mock runs as the twin of a server: where the Messaging API document ` +
    "leaves a choice open, it answers as that server's profile says (`x-conventions`, and `GET /__mock/conventions`); " +
    'the records and the rules behind them stay the mock’s.';
  info['x-conventions'] = { taken: profile.taken, not_mirrored: profile.notMirrored };

  const paths = document.paths as Record<string, Schema>;
  document.paths = Object.fromEntries(
    Object.entries(paths).map(([template, item]) => {
      if (!template.startsWith('/v1')) return [template, item];
      for (const method of METHODS) {
        const operation = item[method];
        if (isObject(operation)) twinOperation(c, operation);
      }
      return [`${c.pathPrefix}${template}`, item];
    }),
  );

  twinParameters(c, components.parameters as Record<string, Schema>);
  twinRecords(c, schemas);
  twinInputs(c, schemas);
  const cursor = pagingOf(c);
  for (const page of ['ContactPage', 'MessagePage']) {
    const schema = schemas[page]!;
    const properties = schema.properties as Record<string, Schema>;
    (properties.data as Schema).maxItems = c.limit?.max ?? LIMITS.pageSizeMax;
    if (cursor.bodyKey !== undefined) {
      const [outer, inner] = cursor.bodyKey.split('.') as [string, string | undefined];
      const next: Schema = {
        type: ['string', 'null'],
        description:
          cursor.kind === 'body-url'
            ? "The next page's URL; null on the last page."
            : `The next page's token, to send as \`${cursor.param ?? 'cursor'}\`; null on the last page.`,
      };
      properties[outer] =
        inner === undefined ? next : { type: 'object', required: [inner], properties: { [inner]: next } };
      (schema.required as string[]).push(outer);
    }
    for (const field of c.ownFields?.page ?? []) placeOwn(schema, field, {});
  }
  if (c.errorBody) schemas.Error = errorSchema(c.errorBody, c.ownFields?.error);
  return document;
}

/** The values the server refuses (src/twin/profile.ts inputRules), in the schemas of the inputs. */
function twinInputs(c: Conventions, schemas: Record<string, Schema>): void {
  const inputs = { contacts: ['ContactCreate', 'ContactUpdate'], messages: ['MessageSend', 'MessageUpdate'] };
  for (const [kind, names] of Object.entries(inputs) as [Kind, string[]][])
    for (const [param, rule] of Object.entries(c.inputRules?.[kind] ?? {}))
      for (const name of names) {
        const property = (schemas[name]?.properties as Record<string, Schema> | undefined)?.[param];
        if (!property) continue;
        if (rule.maxLength !== undefined)
          property.maxLength = Math.min(
            rule.maxLength,
            (property.maxLength as number | undefined) ?? Infinity,
          );
        if (rule.refused.length > 0)
          property.description =
            `${(property.description as string | undefined) ?? ''} This server refuses a value ${rule.refused.map(formInWords).join(' or ')}.`.trim();
      }
}

/**
 * The control routes carry the world as the mock holds it (a fixture, the journal) and refuse in
 * the mock's words: what they name of the API's records gets a copy of the mock's shape, so that
 * the API's may become the server's.
 */
function keepMockShapes(document: Schema, schemas: Record<string, Schema>): void {
  const copied = new Set<string>();
  const rename = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(rename);
    else if (isObject(node)) {
      const target = typeof node.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(node.$ref) : null;
      if (target && API_SCHEMAS.includes(target[1]!)) {
        copied.add(target[1]!);
        node.$ref = `#/components/schemas/Mock${target[1]}`;
      }
      Object.values(node).forEach(rename);
    }
  };
  for (const [template, item] of Object.entries(document.paths as Record<string, Schema>))
    if (!template.startsWith('/v1')) rename(item);
  // The API's pages hold its records; its inputs (MessageUpdate's reactions) keep the mock's forms.
  const api = [...API_SCHEMAS, 'ContactPage', 'MessagePage'];
  for (const [name, schema] of Object.entries(schemas)) if (!api.includes(name)) rename(schema);
  for (let grown = true; grown;) {
    grown = false;
    for (const name of [...copied]) {
      if (schemas[`Mock${name}`]) continue;
      const copy = structuredClone(schemas[name]!);
      rename(copy);
      schemas[`Mock${name}`] = copy;
      grown = true;
    }
  }
}

function pagingOf(c: Conventions) {
  return c.paging ?? MOCK_PAGING;
}

/** One of the ten operations: its statuses, content types, parameters and texts. */
function twinOperation(c: Conventions, operation: Schema): void {
  const known = OPERATIONS[operation.operationId as string];
  if (!known) return;
  const { kind, op } = known;
  const type = c.contentType ?? 'application/json';
  // A server that reads forms only: so does its twin (src/core/api.ts).
  const requestBody = operation.requestBody as Schema | undefined;
  if (c.refusesJson && requestBody && isObject(requestBody.content))
    delete (requestBody.content as Record<string, unknown>)['application/json'];
  const responses = operation.responses as Responses;
  const successes: Responses = {};
  const refusals: Responses = {};
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith('2')) {
      const delete_ = op === 'delete' ? c.deleteAnswer[kind] : undefined;
      // A delete's status is its answer's (routes.ts): 204 and no body unless the profile says.
      const to = String(
        op === 'delete' ? (delete_?.status ?? status) : (c.successStatus[`${kind}.${op}`] ?? status),
      );
      successes[to] = delete_ ? deleteAnswer(delete_, kind, type) : withType(response, type);
    } else {
      for (const [to, described] of refusalsOf(c, Number(status), response, op))
        refusals[to] = refusals[to] ? merged(refusals[to], described) : described;
    }
  }
  const errorType = c.errorBody?.contentType ?? 'application/json';
  for (const response of Object.values(refusals)) withType(response, errorType);
  operation.responses = { ...successes, ...refusals };
  if (op === 'list') twinList(c, kind, operation, successes);
}

/** A response whose body (if any) is of `type`. */
function withType(response: Schema, type: string): Schema {
  if (isObject(response.content)) {
    const [schema] = Object.values(response.content as Record<string, { schema: unknown }>);
    response.content = { [type]: schema };
  }
  return response;
}

function deleteAnswer(
  answer: NonNullable<Conventions['deleteAnswer'][Kind]>,
  kind: Kind,
  type: string,
): Schema {
  if (answer.body === 'empty') return { description: 'Deleted; no body.' };
  if (answer.body === 'object')
    return {
      description: `Deleted: the ${kind === 'contacts' ? 'contact' : 'message'} as it was.`,
      content: { [type]: { schema: ref(kind === 'contacts' ? 'Contact' : 'Message') } },
    };
  // The marker's keys the twin fills (core/routes.ts): the id, `deleted: true`, the object's kind.
  const written: Record<string, Schema> = {
    id: { type: 'string', description: 'The id of the deleted record.' },
    deleted: { const: true },
    object: { const: kind },
  };
  const keys = (answer.keys ?? []).filter((key) => key in written);
  return {
    description: 'Deleted: a marker of the deletion.',
    content: {
      [type]: {
        schema: {
          type: 'object',
          additionalProperties: false,
          required: keys,
          properties: Object.fromEntries(keys.map((key) => [key, written[key]])),
        },
      },
    },
  };
}

/** The statuses a refusal of the mock's takes on the twin (src/twin/answers.ts caseOf). */
function refusalsOf(c: Conventions, status: number, response: Schema, op: string): [string, Schema][] {
  const list = op === 'list';
  const s = c.errorStatus;
  const copy = () => structuredClone(response);
  if (status === 404) {
    const unknown: [string, Schema] = [String(s.unknownId ?? 404), copy()];
    // A record's own route: an id a delete took is answered apart (src/core/routes.ts).
    return tellsDeleted(c) && ['retrieve', 'update', 'delete'].includes(op)
      ? [
          unknown,
          [
            String(s.deletedId),
            {
              description: 'The id named a record that was deleted.',
              content: structuredClone(response.content),
            },
          ],
        ]
      : [unknown];
  }
  if (status === 401) return [[String(s.missingToken ?? 401), copy()]];
  if (status !== 400) return [[String(status), copy()]];
  const out: [string, Schema][] = [[String(s.missingParameter ?? 400), copy()]];
  if (list)
    out.push([
      String(s.invalidLimit ?? 400),
      {
        description: `\`limit\` out of its bounds, or not a whole number.`,
        content: structuredClone(response.content),
      },
    ]);
  return out;
}

/** Two refusals under one status: both descriptions, and the headers of both. */
function merged(a: Schema, b: Schema): Schema {
  const description =
    a.description === b.description
      ? a.description
      : `${a.description as string} Or: ${b.description as string}`;
  const headers = { ...(a.headers as Schema | undefined), ...(b.headers as Schema | undefined) };
  return { ...a, description, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

const ORDER_FIELDS: Record<string, string> = {
  created_at: 'creation time',
  username: '`username`',
  display_name: '`display_name`',
  message: 'the text of the message',
  id: 'id',
};

/** A list: its order, its paging parameter, its next-page key or Link header, in words too. */
function twinList(c: Conventions, kind: Kind, operation: Schema, successes: Responses): void {
  const paging = pagingOf(c);
  const order = c.order[kind];
  const orderText =
    order === undefined
      ? 'the most recently created first'
      : order.field === null
        ? 'in an order no field explains (the same on every read)'
        : order.field === 'created_at'
          ? order.direction === 'asc'
            ? 'the oldest first'
            : 'the most recently created first'
          : `by ${ORDER_FIELDS[order.field]}, ${order.direction === 'desc' ? 'descending' : 'ascending'}`;
  const filter =
    kind === 'contacts'
      ? '`active=true` keeps the contacts that have been active, `active=false` those never active.'
      : "With `conversation_id`, only that conversation's messages; a conversation this token does not have (its contact deleted, say) is refused as an unknown id.";
  operation.summary = `List ${kind}.`;
  operation.description = `A page of the ${kind}, ${orderText}. The next page: ${describePaging(paging)}. ${filter}`;
  const others = (operation.parameters as Schema[]).filter(
    (parameter) =>
      !['#/components/parameters/starting_after', '#/components/parameters/ending_before'].includes(
        parameter.$ref as string,
      ),
  );
  operation.parameters = [...others, { $ref: '#/components/parameters/page_cursor' }];
  if (paging.kind === 'link-header')
    for (const response of Object.values(successes))
      response.headers = {
        Link: {
          description: `\`<URL of the next page>; rel="next"\`, when there is a next page.`,
          schema: { type: 'string' },
        },
      };
}

/** `limit`'s bounds and the paging parameter, as src/twin/lists.ts reads them. */
function twinParameters(c: Conventions, parameters: Record<string, Schema>): void {
  const max = c.limit?.max ?? LIMITS.pageSizeMax;
  const clamp = c.limit?.overMax === 'clamp';
  parameters.limit = {
    name: 'limit',
    in: 'query',
    description: clamp
      ? `The page's size, at most ${max}: a larger one gives ${max}.`
      : `The page's size, at most ${max}.`,
    schema: {
      type: 'integer',
      minimum: 1,
      ...(clamp ? {} : { maximum: max }),
      default: c.limit?.default ?? LIMITS.pageSizeDefault,
    },
  };
  delete parameters.starting_after;
  delete parameters.ending_before;
  const paging = pagingOf(c);
  const name = paging.param ?? 'cursor';
  const schemas: Record<string, [Schema, string]> = {
    'after-id': [{ type: 'string', minLength: 1 }, 'The items after this id, in list order.'],
    page: [{ type: 'integer', minimum: 1 }, 'The page to answer, from 1.'],
    offset: [{ type: 'integer', minimum: 0 }, 'How many items of the list come before the page.'],
    'body-token': [
      { type: 'string', minLength: 1 },
      `The token of the next page: the answer's \`${paging.bodyKey}\`.`,
    ],
    'body-url': [
      { type: 'string', minLength: 1 },
      `Set by the next page's URL (the answer's \`${paging.bodyKey}\`): follow that URL rather than build it.`,
    ],
    'link-header': [
      { type: 'string', minLength: 1 },
      'Set by the next page\'s URL (the `Link` header, rel="next"): follow that URL rather than build it.',
    ],
  };
  const [schema, description] = schemas[paging.kind]!;
  parameters.page_cursor = { name, in: 'query', description, schema };
}

import { ERROR_STATUS } from '../errors';
import { MAX_TIMESTAMP } from '../store/order';
import {
  errorKeyPaths,
  idInWords,
  sourceOf,
  type Conventions,
  type ErrorKey,
  type IdFormat,
  type OwnField,
} from './profile';
import type { Schema } from '../openapi/schemas';

/**
 * The records and the error body of a twin's OpenAPI document (./twin.ts), as src/twin/answers.ts
 * writes them: timestamps in the server's unit, its id formats, its default avatar, its reactions
 * and attachments, and its error body.
 */
const TIMESTAMPS = ['created_at', 'last_active_at', 'updated_at', 'read_at'];

/** The records as the twin answers them: timestamps, ids, avatars, reactions, attachments. */
export function twinRecords(c: Conventions, schemas: Record<string, Schema>): void {
  const props = (name: string) => schemas[name]!.properties as Record<string, Schema>;
  const factor =
    c.timestampUnit === 'milliseconds' ? 1000 : c.timestampUnit === 'microseconds' ? 1_000_000 : 1;
  const records = ['Contact', 'MessageContact', 'Message', 'Attachment'];
  if (factor !== 1)
    for (const name of records)
      for (const key of TIMESTAMPS) {
        const field = props(name)[key];
        if (!field) continue;
        field.maximum = MAX_TIMESTAMP * factor;
        field.description = (field.description as string).replace('Unix seconds', `Unix ${c.timestampUnit}`);
        if (!(field.description as string).includes(`Unix ${c.timestampUnit}`))
          field.description = `Unix ${c.timestampUnit} (UTC). ${field.description as string}`;
      }

  const id = (field: Schema, format: IdFormat | undefined) => {
    if (!format) return;
    const example = idExample(format);
    field.description = `Ids of the server's format: ${idText(format)}, e.g. ${example}; a fixture put in place (PUT /__mock/state) keeps its own.`;
    field.examples = [example];
  };
  id(props('Contact').id!, c.ids.contact);
  id(props('Contact').conversation_id!, c.ids.conversation);
  id(props('MessageContact').id!, c.ids.contact);
  id(props('Message').id!, c.ids.message);
  id(props('Message').conversation_id!, c.ids.conversation);
  id(props('Attachment').message_id!, c.ids.message);

  const avatar = c.avatarDefault;
  if (avatar)
    for (const name of ['Contact', 'MessageContact']) {
      const url = props(name).avatar_url!;
      props(name).avatar_url =
        avatar.kind === 'empty'
          ? { anyOf: [url, { const: '' }], description: 'Empty for a contact created without one.' }
          : {
              ...url,
              description: `Without one given: ${avatar.template}, the username in place of {username}.`,
            };
    }

  if (c.reactionsLayout === 'merged') {
    const reaction = schemas.Reaction!;
    delete reaction.maxProperties;
    reaction.description = 'Every reaction name of the message mapped to the usernames that reacted with it.';
    Object.assign(props('Message').reactions!, {
      maxItems: 1,
      description: 'Empty, or one object of every reaction.',
    });
  }

  if (c.ownFields) {
    const own = c.ownFields;
    for (const field of own.contact) placeOwn(schemas.Contact!, field, props('Contact'));
    for (const field of own.message) placeOwn(schemas.Message!, field, props('Message'));
    for (const field of own.sender) placeOwn(schemas.MessageContact!, field, props('MessageContact'));
  }

  if (c.attachments) {
    const { sent, answered } = c.attachments;
    const mock = props('Attachment');
    schemas.Attachment = {
      type: 'object',
      additionalProperties: false,
      required: answered,
      properties: Object.fromEntries(
        answered.map((key) => {
          const source = sourceOf(key);
          return [key, source === undefined ? { type: 'null' } : structuredClone(mock[source]!)];
        }),
      ),
    };
    for (const input of ['MessageSend', 'MessageUpdate']) {
      const attachments = props(input).attachments!;
      const item = attachments.items as Schema;
      const fields = item.properties as Record<string, Schema>;
      const covered = new Set(sent.map(sourceOf));
      const url = sent.find((key) => sourceOf(key) === 'file_url')!;
      attachments.items = {
        type: 'object',
        additionalProperties: false,
        required: [url],
        description: `The server's shape: ${sent.join(', ')}.`,
        properties: {
          ...Object.fromEntries(Object.entries(fields).filter(([key]) => !covered.has(sourceOf(key)))),
          ...Object.fromEntries(sent.map((key) => [key, fields[sourceOf(key) ?? ''] ?? {}])),
        },
      };
    }
  }
}

/** A field the server adds (src/twin/fields.ts), as the twin fills it; not required where it may be left out. */
function ownSchema(field: OwnField, record: Record<string, Schema>): Schema {
  switch (field.as) {
    case 'constant':
      return { const: field.value, description: "The server's own field: always this." };
    case 'example':
      return {
        description: "The server's own field, filled with the value the kit saw.",
        examples: [field.value],
      };
    case 'self':
      return { type: 'string', description: `The server's own field: the record's URL, ${field.template}.` };
    case 'copy':
      return {
        ...structuredClone(record[field.of] ?? {}),
        description: `The server's own field: the record's ${field.of}.`,
      };
    case 'param':
      return {
        description: `The server's own field: the request's \`${field.param}\` as in force; ${JSON.stringify(field.absent)} without it.`,
        ...(typeof field.absent === 'number' ? { type: 'integer' } : {}),
      };
    case 'count':
      return {
        type: 'integer',
        minimum: 0,
        description: "The server's own field: the items of the whole list.",
      };
    case 'prev':
      return {
        type: ['string', 'null'],
        description: "The server's own field: the previous page, null on a first one.",
      };
    case 'param-refused':
      return {
        type: 'string',
        description: "The server's own field: the parameter at fault, when there is one.",
      };
    case 'status':
      return { type: 'integer', description: "The server's own field: the HTTP status." };
  }
}

/** Puts an own field into an object schema, at its path. */
export function placeOwn(schema: Schema, field: OwnField, record: Record<string, Schema>): void {
  const path = field.path.split('.');
  place(schema, path, ownSchema(field, record));
  if (field.as !== 'param-refused' && !(field.as === 'copy' && record[field.of] === undefined)) return;
  // Left out where the answer cannot tell it, and so is each object that holds nothing else.
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const holder = schemaAt(schema, path.slice(0, depth));
    if (!holder) return;
    // An array made for it (`invalid_params.0.name`) goes with it.
    if (holder.type === 'array') continue;
    holder.required = ((holder.required as string[] | undefined) ?? []).filter((k) => k !== path[depth]);
    if ((holder.required as string[]).length > 0) return;
  }
}

function idText(format: IdFormat): string {
  const body = idInWords(format);
  return format.prefix ? `"${format.prefix}" and ${body}` : body;
}

function idExample(format: IdFormat): string {
  const length = format.length ?? format.minLength ?? 16;
  const body =
    format.kind === 'numeric'
      ? '482913375501846071952'.slice(0, length).padEnd(length, '0')
      : format.kind === 'hex'
        ? '5f3a9c0e7b12d4468a01cc9e'.slice(0, length).padEnd(length, '0')
        : format.kind === 'uuid'
          ? `0f8fad5b-d9cb-${(format.version ?? 4).toString(16)}69f-a165-70867728950e`
          : 'WAz8eIbvDR60rouKq3Fm7Xc2Lp9TzN4b'.slice(0, length).padEnd(length, 'x');
  return format.prefix + body;
}

/** The server's error body (src/twin/answers.ts errorAnswer): its message, code and other keys. */
export function errorSchema(
  shape: NonNullable<Conventions['errorBody']>,
  own: readonly OwnField[] = [],
): Schema {
  const root: Schema = { type: 'object', additionalProperties: false, required: [], properties: {} };
  place(root, shape.messageAt.split('.'), { type: 'string' });
  if (shape.codeAt) place(root, shape.codeAt.split('.'), { type: 'string', enum: Object.keys(ERROR_STATUS) });
  // The keys the twin fills (src/twin/answers.ts): at the top, and beside a nested message.
  for (const [path, kind] of errorKeyPaths(shape)) {
    const key = path.at(-1)!;
    // What the server puts there is known field by field (src/twin/answers.ts): those describe it.
    const at = path.join('.');
    if (own.some((field) => field.path === at || field.path.startsWith(`${at}.`))) continue;
    if (propertiesOf(schemaAt(root, path.slice(0, -1)))?.[key]) continue;
    const { schema, always } = ERROR_KEY_SCHEMAS[kind];
    place(root, path, schema);
    // The parameter at fault is there when there is one: not required.
    const holder = schemaAt(root, path.slice(0, -1))!;
    if (!always) holder.required = (holder.required as string[]).filter((k) => k !== key);
  }
  for (const field of own) placeOwn(root, field, {});
  root.description = `The server's error body: the message at \`${shape.messageAt}\`${shape.codeAt ? `, the code at \`${shape.codeAt}\`` : ''}.`;
  return root;
}

/** The schema of each key of an error body that the twin fills (profile.ts errorKeyOf), and whether always. */
const ERROR_KEY_SCHEMAS: Record<ErrorKey, { schema: Schema; always: boolean }> = {
  status: { schema: { type: 'integer', description: 'The HTTP status.' }, always: true },
  title: { schema: { type: 'string', description: "The status's reason phrase." }, always: true },
  type: { schema: { const: 'about:blank' }, always: true },
  param: {
    schema: { type: 'string', description: 'The parameter at fault, when there is one.' },
    always: false,
  },
  invalidParams: {
    schema: {
      type: 'array',
      description: 'The parameter at fault, when there is one, by name.',
      items: {
        type: 'object',
        required: ['name', 'reason'],
        properties: { name: { type: 'string' }, reason: { type: 'string' } },
      },
    },
    always: false,
  },
};

const propertiesOf = (schema: Schema | undefined) => schema?.properties as Record<string, Schema> | undefined;

/** The schema at a path of an object (or array) schema that `place` made, if any. */
function schemaAt(schema: Schema, path: string[]): Schema | undefined {
  return path.reduce<Schema | undefined>(
    (at, segment) =>
      at?.type === 'array' ? (at.prefixItems as Schema[])[Number(segment)] : propertiesOf(at)?.[segment],
    schema,
  );
}

/** Adds the path `keys` to an object (or array) schema, making objects and arrays on the way. */
function place(schema: Schema, keys: string[], leaf: Schema): void {
  const [key, ...rest] = keys as [string, ...string[]];
  const child = (existing: Schema | undefined): Schema => {
    if (rest.length === 0) return leaf;
    const array = /^[0-9]+$/.test(rest[0]!);
    const next =
      existing ??
      (array
        ? { type: 'array', prefixItems: [], minItems: 0 }
        : { type: 'object', additionalProperties: false, required: [], properties: {} });
    place(next, rest, leaf);
    return next;
  };
  if (schema.type === 'array') {
    const index = Number(key);
    const items = schema.prefixItems as Schema[];
    while (items.length < index) items.push({ type: 'null' });
    items[index] = child(items[index]);
    schema.minItems = Math.max(schema.minItems as number, index + 1);
    schema.maxItems = schema.minItems;
    return;
  }
  const properties = schema.properties as Record<string, Schema>;
  properties[key] = child(properties[key]);
  const required = schema.required as string[];
  if (!required.includes(key)) required.push(key);
}

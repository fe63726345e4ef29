import { ApiError } from '../../src/errors';
import { createReader, updateReader } from '../../src/input/operations';
import { paramsFrom } from '../../src/input/params';
import { createSchema, updateSchema } from '../../src/openapi/schemas';
import {
  boolean,
  changes,
  complete,
  created,
  id,
  namesOf,
  text,
  timestamp,
  type CreateInput,
  type RowData,
} from '../../src/resources/field';

/**
 * The field table's machinery on a table of its own, with a boolean that has a fixed fallback:
 * the kind of field that the API gains over time (a contact's `muted`, say).
 */
const NOTE = {
  id: id({ create: { by: 'id', of: 'contact' } }),
  title: text({ min: 1, max: 20 }, { create: { by: 'input', required: true, example: 'Shopping' } }),
  body: text(
    { max: 100 },
    {
      nullable: true,
      create: {
        by: 'input',
        required: false,
        fallback: (given) => `about ${String(given.title)}`,
        note: 'Absent: about the title.',
      },
      update: { note: 'Empty or null: null.' },
    },
  ),
  pinned: boolean({
    create: { by: 'input', required: false, fallback: false, note: 'Absent: false.' },
    update: { note: 'true or false.' },
  }),
  created_at: timestamp({ create: { by: 'clock' } }),
};

it('lists the fields in the order of the table', () => {
  expect(namesOf(NOTE)).toEqual(['id', 'title', 'body', 'pinned', 'created_at']);
});

it('complete() fills a field with a fixed fallback that data leaves out, in the table order', () => {
  const data: RowData<typeof NOTE> = { created_at: 5, title: 't', id: 'n1', body: null };
  const whole = complete(NOTE, data);
  expect(whole).toEqual({ id: 'n1', title: 't', body: null, pinned: false, created_at: 5 });
  expect(Object.keys(whole)).toEqual(namesOf(NOTE));
  expect(complete(NOTE, { ...data, pinned: true }).pinned).toBe(true);
  // @ts-expect-error body has a fallback made from the input, not a fixed one: data must give it
  complete(NOTE, { id: 'n1', title: 't', created_at: 5 });
});

it('created() makes each field as its create says: input, a fallback of it or a fixed one, an id, the clock', () => {
  const ids: string[] = [];
  const making = { id: (of: string) => (ids.push(of), `${of}-${ids.length}`), now: 42 };
  const input: CreateInput<typeof NOTE> = { title: 'Shopping' };
  expect(created(NOTE, input, making)).toEqual({
    id: 'contact-1',
    title: 'Shopping',
    body: 'about Shopping',
    pinned: false,
    created_at: 42,
  });
  expect(created(NOTE, { title: 'x', body: 'b', pinned: true }, making)).toMatchObject({
    body: 'b',
    pinned: true,
  });
});

it('changes() keeps what an update gives, null included, and is undefined when it gives nothing', () => {
  expect(changes<typeof NOTE>({ body: undefined, pinned: undefined })).toBeUndefined();
  expect(changes<typeof NOTE>({ body: null, pinned: undefined })).toEqual({ body: null });
  expect(changes<typeof NOTE>({ pinned: false })).toEqual({ pinned: false });
});

it('the OpenAPI bodies of a create and an update follow the table', () => {
  const create = createSchema(NOTE) as { required: string[]; properties: Record<string, unknown> };
  expect(create.required).toEqual(['title']);
  expect(Object.keys(create.properties)).toEqual(['title', 'body', 'pinned']);
  // A form sends a boolean as text, and a blank field for "not given".
  expect(create.properties.pinned).toEqual({
    anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['true', 'false'] }, { const: '' }],
    description: 'Absent: false.',
  });
  const update = updateSchema(NOTE) as { required?: string[]; properties: Record<string, unknown> };
  expect(update.required).toBeUndefined();
  expect(Object.keys(update.properties)).toEqual(['body', 'pinned']);
});

describe('the readers of a create and an update', () => {
  const create = (body: Record<string, unknown>) => createReader(NOTE)(paramsFrom(body));
  const update = (body: Record<string, unknown>) => updateReader(NOTE)(paramsFrom(body));
  const refusal = (read: () => unknown) => {
    try {
      read();
    } catch (error) {
      if (error instanceof ApiError) return { code: error.code, param: error.param };
    }
    return undefined;
  };

  it('take a boolean as JSON or as the text a form sends, and a blank optional field as not given', () => {
    expect(create({ title: 't', pinned: 'true' })).toEqual({ title: 't', body: undefined, pinned: true });
    expect(create({ title: 't', pinned: false, body: '' }).pinned).toBe(false);
    expect(create({ title: 't', pinned: '' }).pinned).toBeUndefined();
    expect(update({ pinned: 'false' })).toEqual({ body: undefined, pinned: false });
  });

  it('refuse, naming the parameter: a missing required field, a value of another type, a field not taken', () => {
    expect(refusal(() => create({}))).toEqual({ code: 'parameter_missing', param: 'title' });
    expect(refusal(() => create({ title: 't', pinned: 'yes' }))).toEqual({
      code: 'parameter_invalid',
      param: 'pinned',
    });
    expect(refusal(() => update({ pinned: null }))).toEqual({ code: 'parameter_invalid', param: 'pinned' });
    expect(refusal(() => update({ title: 'x' }))).toEqual({ code: 'parameter_unknown', param: 'title' });
  });

  it('clear a nullable field sent null or empty in an update', () => {
    expect(update({ body: null }).body).toBeNull();
    expect(update({ body: '' }).body).toBeNull();
    expect(update({ body: 'b' }).body).toBe('b');
  });
});

import type { IdKind } from '../ids';
import type { IntegerRule, StringRule } from './formats';

/**
 * How a resource's field is declared: one entry of a field table (contact.ts, message.ts,
 * attachment.ts). The table is the one home of a field. What reads it:
 * - types.ts derives the record types (Row) and the field lists, in the table's order, which is
 *   the order of every JSON answer;
 * - input/operations.ts reads a create or an update from its `create` and `update`;
 * - the store's copies are generated from it (scripts/generate-copies.ts), literal and of one shape;
 * - fixtures.ts checks a fixture's record by `type`, openapi/schemas.ts describes it by `type`;
 * - fixtures.ts, the recorder (complete()) and the store's copy of a record given as data fill a
 *   field with a fixed default (`create.fallback`) that the data leaves out.
 * A new field of a known type is one entry here: each of those switches over `type`, not over names.
 */
export type FieldType =
  /** A record's id: a fixture's is RECORD_ID, the mock's own are made by ids.ts. */
  | 'id'
  | 'text'
  /** An absolute http(s) URL. */
  | 'url'
  /** Unix seconds (UTC), a whole number. */
  | 'timestamp'
  | 'integer'
  | 'boolean'
  /** A message's contact: its conversation's contact as a sender, derived when read (C11). */
  | 'sender'
  | 'reactions'
  | 'attachments';

/** What a contact's create was given, after its checks: what a default made from it reads. */
type Given = Readonly<Record<string, unknown>>;

/** Where a field's value comes from when its record is created. */
type Create<T> =
  /** The request must send it; `example` is what the refusal of a request without it shows. */
  | { readonly by: 'input'; readonly required: true; readonly example: string }
  /**
   * The request may send it. Absent or empty it is `fallback`, a value or made from what was
   * given; `note` says so in the OpenAPI document. A fixed fallback also fills the field in a
   * fixture, a seeded world or a recording that leaves it out, so that adding such a field
   * changes none of them.
   */
  | {
      readonly by: 'input';
      readonly required: false;
      readonly fallback: T | ((given: Given) => T);
      readonly note: string;
    }
  /** A new id of this kind (ids.ts). */
  | { readonly by: 'id'; readonly of: IdKind }
  /** The world's clock. */
  | { readonly by: 'clock' }
  /** Always this value at first. */
  | { readonly by: 'value'; readonly value: T }
  /** The store's own operation makes it (a message's, which has more than one field per input). */
  | { readonly by: 'store' };

/** An update may send the field; absent it stays. Null (or empty, for text) clears a nullable one. */
interface Update {
  readonly note: string;
}

declare const VALUE: unique symbol;

export interface Field<T> {
  readonly type: FieldType;
  /** The length and pattern of a text, the bounds of an integer. */
  readonly rule?: StringRule | IntegerRule;
  readonly nullable: boolean;
  /** The record schema's description of the field, when it needs one. */
  readonly note?: string;
  /** A contact's field that a message's contact shows too (document 2.2). */
  readonly sender: boolean;
  /** False for a field derived when read, which the store and fixtures do not keep. */
  readonly stored: boolean;
  readonly create: Create<T>;
  readonly update?: Update;
  /** The value's type, for Row; never set. */
  readonly [VALUE]?: T;
}

export type Table = Readonly<Record<string, Field<unknown>>>;

interface Options<T> {
  /** Null is a value of the field. */
  readonly nullable?: boolean;
  readonly note?: string;
  readonly sender?: boolean;
  readonly stored?: boolean;
  readonly create: Create<T | null>;
  readonly update?: Update;
}

type Valued<T, O> = Field<O extends { nullable: true } ? T | null : T> & O;

function field<T, O extends Options<T>>(type: FieldType, options: O, rule?: Field<T>['rule']): Valued<T, O> {
  return { type, rule, nullable: false, sender: false, stored: type !== 'sender', ...options } as Valued<
    T,
    O
  >;
}

export const id = <const O extends Options<string>>(options: O) => field<string, O>('id', options);
export const text = <const O extends Options<string>>(rule: StringRule, options: O) =>
  field<string, O>('text', options, rule);
export const url = <const O extends Options<string>>(options: O) => field<string, O>('url', options);
export const timestamp = <const O extends Options<number>>(options: O) =>
  field<number, O>('timestamp', options);
export const integer = <const O extends Options<number>>(rule: IntegerRule, options: O) =>
  field<number, O>('integer', options, rule);
export const boolean = <const O extends Options<boolean>>(options: O) =>
  field<boolean, O>('boolean', options);
/** A field of a structured type, checked and described by its own code (`type` says which). */
export const structured =
  <T>() =>
  <const O extends Options<T>>(type: 'sender' | 'reactions' | 'attachments', options: O) =>
    field<T, O>(type, options);

type ValueOf<F> = F extends { readonly [VALUE]?: infer V } ? Exclude<V, undefined> : never;

/** The record a table declares: each field with its value's type. */
export type Row<T extends Table> = { -readonly [K in keyof T]: ValueOf<T[K]> };

export type KeysWhere<T extends Table, P> = { [K in keyof T]: T[K] extends P ? K : never }[keyof T];
type RequiredInput<T extends Table> = KeysWhere<T, { create: { by: 'input'; required: true } }>;
type OptionalInput<T extends Table> = KeysWhere<T, { create: { by: 'input'; required: false } }>;

/** What a create takes: the required fields, and the optional ones, which are never null. */
export type CreateInput<T extends Table> = { [K in RequiredInput<T>]: NonNullable<ValueOf<T[K]>> } & {
  [K in OptionalInput<T>]?: NonNullable<ValueOf<T[K]>>;
};

/** What an update takes: each updatable field; undefined leaves it as it is. */
export type UpdateInput<T extends Table> = { [K in KeysWhere<T, { update: Update }>]?: ValueOf<T[K]> };

/** The fields a record keeps: all but those derived when read. */
type Stored<T extends Table> = Exclude<keyof T, KeysWhere<T, { stored: false }>>;
export type StoredRow<T extends Table> = Pick<Row<T>, Stored<T>>;

/** The fields with a fixed fallback, which a record given as data may leave out. */
type Defaulted<T extends Table> = {
  [K in keyof T]: T[K] extends { create: { fallback: infer F } } ? (F extends Function ? never : K) : never;
}[keyof T];

/** A record as seeding, recording or a fixture makes it: a field with a fixed fallback may be absent. */
export type RowData<T extends Table> = Omit<StoredRow<T>, Defaulted<T>> &
  Partial<Pick<StoredRow<T>, Defaulted<T> & keyof StoredRow<T>>>;

/** The names of a table's fields, in its order. */
export function namesOf<T extends Table>(table: T): (keyof T & string)[] {
  return Object.keys(table);
}

/** The fixed fallback of a field, or undefined when it has none (it must be given). */
export function fixedFallback(f: Field<unknown>): unknown {
  const c = f.create;
  return c.by === 'input' && !c.required && typeof c.fallback !== 'function' ? c.fallback : undefined;
}

/** Whether a create must send the field (and then the example its refusal shows). */
export function requiredInput(
  f: Field<unknown>,
): f is Field<unknown> & { readonly create: { readonly example: string } } {
  return f.create.by === 'input' && f.create.required;
}

/** A stored field of a table: its name, its declaration, its fixed fallback (undefined when none). */
export interface StoredField {
  readonly name: string;
  readonly field: Field<unknown>;
  readonly fallback: unknown;
}

const stored = new WeakMap<Table, readonly StoredField[]>();

/** The stored fields of a table, in its order: worked out once a table, not once a record. */
export function storedFields(table: Table): readonly StoredField[] {
  let fields = stored.get(table);
  if (fields === undefined) {
    fields = Object.entries(table)
      .filter(([, field]) => field.stored)
      .map(([name, field]) => ({ name, field, fallback: fixedFallback(field) }));
    stored.set(table, fields);
  }
  return fields;
}

/**
 * The stored fields of `data`, in the table's order, each absent one that has a fixed fallback
 * filled with it: what the recorder makes of a record it gives as data.
 */
export function complete<T extends Table>(table: T, data: RowData<T>): StoredRow<T> {
  const given = data as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const { name, fallback } of storedFields(table)) {
    const value = given[name];
    out[name] = value === undefined ? fallback : value;
  }
  return out as StoredRow<T>;
}

/** What a new record's fields are made with, besides its create's input. */
export interface Making {
  readonly id: (of: IdKind) => string;
  readonly now: number;
}

/** A new record of `table` from a create's input: each stored field as its `create` says, in order. */
export function created<T extends Table>(table: T, input: CreateInput<T>, making: Making): StoredRow<T> {
  const given = input as Given;
  const out: Record<string, unknown> = {};
  for (const { name, field } of storedFields(table)) {
    const create = field.create;
    switch (create.by) {
      case 'input': {
        const value = given[name];
        const fallback = create.required ? undefined : create.fallback;
        out[name] =
          value !== undefined
            ? value
            : typeof fallback === 'function'
              ? (fallback as (given: Given) => unknown)(given)
              : fallback;
        break;
      }
      case 'id':
        out[name] = making.id(create.of);
        break;
      case 'clock':
        out[name] = making.now;
        break;
      case 'value':
        out[name] = create.value;
        break;
      case 'store':
        throw new Error(`${name} is made by the store's own operation, not by created()`);
    }
  }
  return out as StoredRow<T>;
}

/** The fields an update changes (those it gives), or undefined when it changes none. */
export function changes<T extends Table>(input: UpdateInput<T>): Partial<Row<T>> | undefined {
  const given = Object.entries(input).filter(([, value]) => value !== undefined);
  return given.length === 0 ? undefined : (Object.fromEntries(given) as Partial<Row<T>>);
}

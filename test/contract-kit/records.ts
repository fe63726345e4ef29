import { SENDER, type Schema } from '../../contract-tests/rules/fields';

/**
 * Records that the kit's tests hand to the proxy's judge, written as the document gives them
 * (contract-tests/rules/fields.ts): a test sets the fields it is about, and every other field the
 * document gives the record holds a plain value of its type, so that a field the document gains
 * is in every such record without a change here.
 */
type Json = Record<string, unknown>;

function plain(type: Schema[string]): unknown {
  switch (type) {
    case 'string':
      return '';
    case 'timestamp':
      return 0;
    case 'object':
      return {};
    case 'array':
      return [];
    case 'boolean':
      return false;
    default:
      // 'string|null', 'timestamp|null'
      return null;
  }
}

/** `fields`, with every other field of `schema` at a plain value, in the document's order; extra fields last. */
export function documented<T extends Json>(schema: Schema, fields: T): T & Json {
  const record: Json = {};
  for (const [name, type] of Object.entries(schema))
    record[name] = name in fields ? fields[name] : plain(type);
  for (const [name, value] of Object.entries(fields)) if (!(name in record)) record[name] = value;
  return record as T & Json;
}

/** A contact as a message carries it: the contact's values of the sender's fields (document 2.2). */
export function senderOf(contact: Json): Json {
  return Object.fromEntries(Object.keys(SENDER).map((field) => [field, contact[field]]));
}

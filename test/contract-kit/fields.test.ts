import {
  CONTACT_FIELDS,
  createdWith,
  fieldsInWords,
  MESSAGE_FIELDS,
  notInSender,
  optionalOf,
  parametersOf,
  requiredOf,
  schemaOf,
  senderOf,
  senderStableOf,
  sentOf,
  stableOf,
  updatedWith,
  type DocField,
  type DocTable,
} from '../../contract-tests/rules/resources';
import {
  CONTACT,
  describeChange,
  kept,
  MESSAGE,
  nonIntegerTimestamps,
  problems,
  reactionsShape,
  sameValue,
  SENDER,
  SENDER_FORBIDDEN,
} from '../../contract-tests/rules/fields';
import { PARAMETERS } from '../../contract-tests/judge/conventions';
import { CONTACT_STABLE, CONTACT_UPDATES } from '../../contract-tests/judge/state';
import { SENDER_FIELDS } from '../../contract-tests/model/model';
import { findRule } from '../../contract-tests/rules/rules';

/**
 * The kit's one table of the document's fields (contract-tests/rules/resources.ts) and the lists
 * the kit and the proxy read from it: what they are today, and that a field added to a copy of
 * the table reaches each of them.
 */
describe("the kit's table of fields", () => {
  it('gives the lists the judge, the model and the schemas read', () => {
    expect(PARAMETERS).toEqual(parametersOf(CONTACT_FIELDS, MESSAGE_FIELDS));
    expect(PARAMETERS['POST contacts']).toEqual(createdWith(CONTACT_FIELDS));
    expect(PARAMETERS['PUT contact']).toEqual(updatedWith(CONTACT_FIELDS));
    expect(PARAMETERS['POST messages']).toEqual(createdWith(MESSAGE_FIELDS));
    expect(PARAMETERS['PUT message']).toEqual(updatedWith(MESSAGE_FIELDS));
    expect(CONTACT_STABLE).toEqual(stableOf(CONTACT_FIELDS));
    expect(CONTACT_UPDATES).toEqual(updatedWith(CONTACT_FIELDS));
    expect(SENDER_FIELDS).toEqual(senderStableOf(CONTACT_FIELDS));
    expect(Object.keys(SENDER)).toEqual(senderOf(CONTACT_FIELDS));
    expect(SENDER_FORBIDDEN).toEqual(notInSender(CONTACT_FIELDS));
    expect(CONTACT).toEqual(schemaOf(CONTACT_FIELDS));
    expect(MESSAGE).toEqual(schemaOf(MESSAGE_FIELDS));
  });

  it("says what the document says of today's fields", () => {
    expect(PARAMETERS['GET contacts']).toEqual(['limit', 'starting_after', 'ending_before', 'active']);
    expect(PARAMETERS['GET messages']).toEqual([
      'limit',
      'starting_after',
      'ending_before',
      'conversation_id',
    ]);
    for (const read of ['GET contact', 'GET message', 'DELETE contact', 'DELETE message'])
      expect(PARAMETERS[read]).toEqual([]);
    expect(requiredOf(CONTACT_FIELDS)).toEqual(['username', 'phone_number']);
    expect(optionalOf(CONTACT_FIELDS)).toEqual(expect.arrayContaining(['avatar_url', 'display_name']));
    expect(updatedWith(CONTACT_FIELDS)).toEqual(expect.arrayContaining(['display_name']));
    expect(requiredOf(MESSAGE_FIELDS)).toEqual(['conversation_id', 'message']);
    expect(optionalOf(MESSAGE_FIELDS)).toEqual(['attachments']);
    expect(updatedWith(MESSAGE_FIELDS)).toEqual(['message', 'reactions', 'attachments']);
    expect(CONTACT_STABLE).toEqual(
      expect.arrayContaining(['username', 'phone_number', 'avatar_url', 'conversation_id', 'created_at']),
    );
    expect(CONTACT_STABLE).not.toContain('display_name');
    expect(SENDER_FIELDS).toEqual(
      expect.arrayContaining(['id', 'username', 'phone_number', 'avatar_url', 'created_at']),
    );
    expect(SENDER_FORBIDDEN).toEqual(expect.arrayContaining(['display_name', 'conversation_id']));
    expect(sentOf(CONTACT_FIELDS, createdWith(CONTACT_FIELDS))).toEqual(
      expect.arrayContaining([
        ['username', 'text'],
        ['phone_number', 'phone'],
        ['avatar_url', 'text'],
        ['display_name', 'text'],
      ]),
    );
  });

  it("names the table's fields in the rules' sentences", () => {
    for (const field of Object.keys(CONTACT_FIELDS))
      expect(findRule('contacts.fields')?.sentence).toContain(field);
    for (const field of Object.keys(MESSAGE_FIELDS))
      expect(findRule('messages.fields')?.sentence).toContain(field);
    for (const field of updatedWith(CONTACT_FIELDS))
      expect(findRule('contacts.update.only-display-name')?.sentence).toContain(`\`${field}\``);
    for (const field of stableOf(CONTACT_FIELDS))
      expect(findRule('contacts.update.keeps-the-rest')?.sentence).toContain(field);
    for (const field of senderOf(CONTACT_FIELDS))
      expect(findRule('messages.contact-fields')?.sentence).toContain(field);
  });

  it('carries a new field to every list: an optional boolean that an update takes', () => {
    const flag: DocField = { type: 'boolean', create: 'optional', changes: 'update', sent: 'boolean' };
    const contact: DocTable = { ...CONTACT_FIELDS, extra_flag: flag };
    const parameters = parametersOf(contact, MESSAGE_FIELDS);
    expect(parameters['POST contacts']).toEqual([...PARAMETERS['POST contacts']!, 'extra_flag']);
    expect(parameters['PUT contact']).toEqual([...PARAMETERS['PUT contact']!, 'extra_flag']);
    expect(parameters['PUT message']).toEqual(PARAMETERS['PUT message']);
    expect(schemaOf(contact).extra_flag).toBe('boolean');
    expect(optionalOf(contact)).toContain('extra_flag');
    expect(sentOf(contact, updatedWith(contact))).toEqual([
      ...sentOf(CONTACT_FIELDS, updatedWith(CONTACT_FIELDS)),
      ['extra_flag', 'boolean'],
    ]);
    // An update changes it: it is not among the fields no update changes, nor shown by a sender.
    expect(stableOf(contact)).toEqual(CONTACT_STABLE);
    expect(senderOf(contact)).toEqual(Object.keys(SENDER));
    expect(senderStableOf(contact)).toEqual(SENDER_FIELDS);
    expect(notInSender(contact)).toEqual([...SENDER_FORBIDDEN, 'extra_flag']);
    expect(fieldsInWords(contact)).toMatch(/extra_flag \(booleans?\)$/);
    // A field the sender shows and no update changes reaches those lists instead.
    const kept: DocTable = {
      ...CONTACT_FIELDS,
      nickname: { type: 'string', create: 'optional', changes: 'never', sender: true, sent: 'text' },
    };
    expect(stableOf(kept)).toEqual([...CONTACT_STABLE, 'nickname']);
    expect(senderStableOf(kept)).toEqual([...SENDER_FIELDS, 'nickname']);
    expect(parametersOf(kept, MESSAGE_FIELDS)['PUT contact']).toEqual(PARAMETERS['PUT contact']);
  });

  it('judges a boolean sent by what it says', () => {
    expect(kept('true', true, 'boolean')).toBe('same');
    expect(kept('true', false, 'boolean')).toBe('lost');
    expect(kept('false', false, 'boolean')).toBe('same');
    expect(kept('false', 'false', 'boolean')).toBe('lost');
    expect(kept('yes', true, 'boolean')).toBe('lossless');
  });

  it('takes a phone number without its punctuation, and with a + put before one sent without; no digit or + lost', () => {
    expect(kept('+1 (555) 010-2783', '+15550102783', 'phone')).toBe('lossless');
    expect(kept('15550102783', '+15550102783', 'phone')).toBe('lossless');
    expect(describeChange('15550102783', '+15550102783', 'phone')).toBe(
      'phone numbers kept as + and digits only',
    );
    expect(kept('+15550102783', '15550102783', 'phone')).toBe('lost');
    expect(kept('15550102783', '+1555010278', 'phone')).toBe('lost');
    expect(kept('15550102783', '+4415550102783', 'phone')).toBe('lost');
  });
});

/** One broken sentence fails one rule: what each reading of the table holds a value to. */
describe('what the table asks of a value', () => {
  it('leaves how a timestamp is written to api.integer-timestamps, and a null or missing one to the table', () => {
    const contact = { created_at: '1795723087', last_active_at: null };
    expect(problems(contact, { created_at: 'timestamp', last_active_at: 'timestamp|null' })).toEqual([]);
    expect(nonIntegerTimestamps(contact, 'contact')).toEqual(['created_at = "1795723087"']);
    expect(problems({ created_at: null }, { created_at: 'timestamp' })).toEqual([
      'created_at should be timestamp, got null',
    ]);
    expect(nonIntegerTimestamps({ created_at: null }, 'contact')).toEqual([]);
  });

  it('takes an avatar_url of null, as a display_name (the document gives an avatar left out no default), and no other null string', () => {
    const contact = {
      id: 'c1',
      username: 'ada',
      phone_number: '+15550100',
      avatar_url: null,
      display_name: null,
      conversation_id: 'v1',
      last_active_at: null,
      created_at: 1795723087,
    };
    expect(problems(contact, CONTACT)).toEqual([]);
    expect(problems({ ...contact, phone_number: null }, CONTACT)).toEqual([
      'phone_number should be string, got null',
    ]);
    // Sent, it must come back as sent: null is then a value lost.
    expect(kept('https://example.com/a.png', null, 'text')).toBe('lost');
  });

  it('takes a number and its digits for one value, and nothing else', () => {
    expect(sameValue(1795723087, '1795723087')).toBe(true);
    expect(sameValue('1795723087', 1795723087)).toBe(true);
    expect(sameValue(1795723087, 1795723088)).toBe(false);
    expect(sameValue('01', '1')).toBe(false);
    expect(sameValue('abc', 'abc')).toBe(true);
    expect(sameValue(null, 'null')).toBe(false);
  });

  it('takes reactions as objects that each map a name to its usernames, and no empty object', () => {
    expect(reactionsShape([{ heart: ['ana', 'bo'] }, { thumbs_up: [] }])).toEqual([]);
    expect(reactionsShape([{}])).toEqual([
      'reactions[0] is an empty object: it maps no reaction name to its usernames',
    ]);
    expect(reactionsShape(['heart'])).toEqual(['reactions[0] is not an object: "heart"']);
    expect(reactionsShape([{ heart: 'ana' }])).toEqual([
      'reactions[0].heart is "ana", not a list of usernames',
    ]);
  });
});

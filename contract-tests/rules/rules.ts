/**
 * The rule catalogue: every rule the kit checks, with where it comes from. `documented` rules come
 * from the API's documented rules (docs/api.md, part 1, by section) and are checked in both
 * rule sets; `mock` rules come from the mock's conventions (docs/api.md, part 2, C1-C20) and only
 * in the `mock` rule set.
 * Every test in this folder names exactly one of these ids, and every id has a test
 * (test/contract-kit/catalogue.test.ts checks both).
 */

import {
  CONTACT_FIELDS,
  fieldsInWords,
  inWords,
  MESSAGE_FIELDS,
  notInSender,
  optionalOf,
  quoted,
  requiredOf,
  senderOf,
  stableOf,
  updatedWith,
} from './resources';

/** A set of rules to check (--rule-set): not a server profile (--profile-out), which is data. */
export type RuleSet = 'documented' | 'mock';

export const RULE_SETS: readonly RuleSet[] = ['documented', 'mock'];

export interface Rule {
  id: string;
  /** Where the rule is written, e.g. "4.1 rule 4" or "C8". */
  section: string;
  /** The sentence it checks, quoted or closely paraphrased from its source. */
  sentence: string;
  /** The smallest rule set that holds the rule. */
  ruleSet: RuleSet;
  /**
   * The judge alone decides the rule: its test sends the requests that show it kept or broken and
   * checks nothing itself (model/harness.ts refuses a check there), and the verdict is the judge's
   * (judge/rule-verdict.ts). Every documented rule is here; the mock's conventions are judged by
   * both, the judge on every exchange and their tests on their own.
   */
  decidedByJudge?: true;
}

type More = Pick<Rule, 'decidedByJudge'>;

const documented = (id: string, section: string, sentence: string, more: More = {}): Rule => ({
  id,
  section,
  sentence,
  ruleSet: 'documented',
  ...more,
});
const convention = (id: string, section: string, sentence: string, more: More = {}): Rule => ({
  id,
  section,
  sentence,
  ruleSet: 'mock',
  ...more,
});
const byJudge: More = { decidedByJudge: true };

/** What an update of a contact takes (rules/resources.ts), which several sentences name. */
const CONTACT_UPDATES = updatedWith(CONTACT_FIELDS);

export const RULES: readonly Rule[] = [
  // ---- the API document ----
  documented(
    'api.v1-prefix',
    '9',
    'The version is carried in the path prefix /v1 on every endpoint: a list asked for there with nothing is not answered "not found" (404, 410) nor sent elsewhere (a redirect).',
    byJudge,
  ),
  documented(
    'api.auth-required',
    '4, 5',
    'Every endpoint requires the Authorization header; every request carries `Authorization: Bearer <ACCESS_TOKEN>`. A request without it is refused (some 4xx) and changes nothing.',
    byJudge,
  ),
  documented(
    'api.form-parameters',
    '2',
    'Request parameters are sent as form-style key/value parameters (bodies of POST and PUT, query of GET).',
    byJudge,
  ),
  documented(
    'api.json-objects',
    '2',
    'Responses are JSON objects (every successful list, create, retrieve and update).',
    byJudge,
  ),
  documented('api.integer-timestamps', '2', 'Timestamps appear in responses as integer numbers.', byJudge),
  documented(
    'api.unique-ids',
    '2.1, 2.2',
    '`id` is the unique identifier of a contact (of a message): no two contacts, and no two messages, ever share one, and the id of a deleted record never names a record created after it.',
    byJudge,
  ),
  documented('contacts.fields', '2.1', `A contact has ${fieldsInWords(CONTACT_FIELDS)}.`, byJudge),
  documented(
    'contacts.create',
    '4.1',
    `POST /v1/contacts with ${inWords(requiredOf(CONTACT_FIELDS))} (and optional ${optionalOf(CONTACT_FIELDS).join(', ')}) returns the created contact object, which can then be retrieved.`,
    byJudge,
  ),
  documented(
    'contacts.create.requires-username-and-phone-number',
    '4.1, 4.1 rule 7',
    '`username` and `phone_number` are required: a create without either is refused (some 4xx).',
    byJudge,
  ),
  documented(
    'contacts.create.display-name-defaults-to-username',
    '2.1, 4.1 rule 4',
    'When a contact is created without `display_name`, `display_name` defaults to the username.',
    byJudge,
  ),
  documented(
    'contacts.create.last-active-at-null',
    '2.1, 4.1 rule 5',
    'On creation the response carries `last_active_at` as null.',
    byJudge,
  ),
  documented(
    'contacts.create.conversation-id',
    '1, 4.1 rule 5',
    'On creation the response carries a `conversation_id`; each contact is tied to one conversation through it.',
    byJudge,
  ),
  documented('contacts.retrieve', '4.1', 'GET /v1/contacts/:id returns the contact object.', byJudge),
  documented(
    'contacts.list',
    '4.1',
    'GET /v1/contacts lists the contacts: every contact that exists is listed once, as it is (the fields retrieve shows).',
    byJudge,
  ),
  documented(
    'contacts.update.display-name',
    '4.1',
    `PUT /v1/contacts/:id with ${inWords(quoted(CONTACT_UPDATES), 'or')} returns the updated contact object, and the new ${CONTACT_UPDATES.length === 1 && CONTACT_UPDATES[0] === 'display_name' ? 'name is' : 'values are'} kept.`,
    byJudge,
  ),
  documented(
    'contacts.update.only-display-name',
    '1, 4.1',
    `${inWords(quoted(CONTACT_UPDATES))} ${CONTACT_UPDATES.length === 1 ? 'is the only updatable attribute' : 'are the only updatable attributes'}: an update of any other attribute is refused or ignored, never applied.`,
    byJudge,
  ),
  documented(
    'contacts.update.keeps-the-rest',
    '1, 4.1',
    `Updating ${inWords(CONTACT_UPDATES, 'or')} changes nothing else: ${inWords(stableOf(CONTACT_FIELDS))} stay as they were, in every view.`,
    byJudge,
  ),
  documented(
    'contacts.delete',
    '4.1',
    'DELETE /v1/contacts/:id deletes the contact: it can no longer be retrieved, and no list shows it (with or without `active`).',
    byJudge,
  ),
  documented(
    'contacts.delete.cascades-conversation',
    '1, 4.1 rule 6',
    'When a contact is deleted, its conversation is deleted too: its messages can no longer be retrieved or listed, nothing can be sent into it, and other conversations stay as they were.',
    byJudge,
  ),
  documented(
    'contacts.unknown-id',
    '4.1 rule 7, 7',
    'Retrieve, update and delete of an unknown contact id are refused (some 4xx).',
    byJudge,
  ),
  documented(
    'contacts.list.active-parameter',
    '4.1 rule 2',
    'The list request takes a boolean query parameter `active` (its meaning is not shown): `active=true` and `active=false` are answered with a page.',
    byJudge,
  ),
  documented(
    'lists.page-fields',
    '2.4',
    'A list returns a page of results: `has_more` (boolean) and `data` (array).',
    byJudge,
  ),
  documented(
    'lists.default-page-size',
    '4.1 rule 1, 4.2 rule 1, 8',
    'A list returns at most ten items per page by default (contacts and messages).',
    byJudge,
  ),
  documented(
    'lists.has-more',
    '2.4',
    '`has_more` is true when more items exist beyond this page, false when none do (also on a last page that is exactly full).',
    byJudge,
  ),
  documented(
    'lists.limit',
    '4.1, 4.2, 8',
    '`limit` reduces the number of items returned per list call (`limit=1` gives one item).',
    byJudge,
  ),
  documented(
    'lists.pages',
    '2.4, 4.1 rule 1, 4.2 rule 1',
    'A paginated list, walked page by page with the server’s own way to the next page (and back, where it has one), shows every item once: no item twice, none left out.',
    byJudge,
  ),
  documented('messages.fields', '2.2', `A message has ${fieldsInWords(MESSAGE_FIELDS)}.`, byJudge),
  documented(
    'messages.contact-fields',
    '2.2',
    `The \`contact\` of a message carries ${inWords(senderOf(CONTACT_FIELDS))}; it does not carry ${inWords(notInSender(CONTACT_FIELDS), 'or')}.`,
    byJudge,
  ),
  documented(
    'messages.contact-is-sender',
    '4.2 rule 3',
    'The `contact` object in a message describes the contact who sent it: the contact the conversation belongs to.',
    byJudge,
  ),
  documented(
    'messages.reactions-shape',
    '2.3',
    'Each element of `reactions` is an object that maps a reaction name (string) to an array of usernames (strings).',
    byJudge,
  ),
  documented(
    'messages.send',
    '4.2',
    'POST /v1/messages with conversation_id and message returns the created message object, in that conversation, with that text; it can then be retrieved.',
    byJudge,
  ),
  documented(
    'messages.send.requires-conversation-id-and-message',
    '4.2',
    '`conversation_id` and `message` are required: a send without either is refused (some 4xx).',
    byJudge,
  ),
  documented(
    'messages.send.new-message-defaults',
    '2.2, 4.2 rule 2',
    'A newly sent message has `reactions` and `attachments` as empty arrays (when none are sent), `read_at` null and `updated_at` null.',
    byJudge,
  ),
  documented(
    'messages.send.attachments',
    '4.2',
    'A message may be sent with `attachments` (an array of attachment objects): the created message carries them.',
    byJudge,
  ),
  documented('messages.retrieve', '4.2', 'GET /v1/messages/:id returns the message object.', byJudge),
  documented(
    'messages.list.conversation-filter',
    '4.2',
    'GET /v1/messages with `conversation_id` restricts the list to that conversation.',
    byJudge,
  ),
  documented(
    'messages.list.all-conversations',
    '4.2 rule 1',
    'Without `conversation_id`, messages across all conversations are listed.',
    byJudge,
  ),
  documented(
    'messages.update.edit-text',
    '1, 4.2 rule 4',
    'Updating may edit the text (`message`): every view shows the new text.',
    byJudge,
  ),
  documented(
    'messages.update.add-reaction',
    '2.3, 4.2 rule 4',
    'Updating may add a reaction, sent as the form key `reactions[<reaction_name>][]` with a username as its value; it is added to what is there, never replacing a name or its usernames.',
    byJudge,
  ),
  documented(
    'messages.update.add-attachment',
    '4.2 rule 4',
    'Updating may add an attachment: it is added to the attachments already there.',
    byJudge,
  ),
  documented(
    'messages.update.keeps-the-rest',
    '1, 4.2 rule 4',
    'An update changes what it was sent and nothing else: conversation_id, created_at, the sender, the text when it was not sent, and the reactions and attachments already there stay, in every view.',
    byJudge,
  ),
  documented(
    'messages.update.updated-at',
    '2.2, 4.2 rule 4',
    '`updated_at` is when the message was last updated: once an update that edits the text, adds a reaction or adds an attachment is answered, it is a time, not null.',
    byJudge,
  ),
  documented(
    'messages.delete.permanent',
    '1, 4.2 rule 5',
    'Deleting a message removes it permanently: it can no longer be retrieved, listed (in its conversation or across all) or updated.',
    byJudge,
  ),
  documented(
    'messages.unknown-id',
    '7',
    'Retrieve, update and delete of an unknown message id are refused (some 4xx).',
    byJudge,
  ),

  // ---- the conventions the mock fills the gaps with (mock rule set only) ----
  convention('mock.success-codes', 'C1', 'GET and PUT answer 200, POST 201, DELETE 204 with an empty body.'),
  convention(
    'mock.error-body',
    'C2',
    'Errors are flat JSON objects {type, code, message, param?}: `type` invalid_request for 4xx, a known `code`, a human `message`, `param` naming the parameter at fault.',
  ),
  convention(
    'mock.error-statuses',
    'C3',
    '400 bad parameter or body, 401 with WWW-Authenticate: Bearer, 404 unknown id or route, 405 with Allow, 413 body over 100 kB, 415 unsupported content type.',
  ),
  convention(
    'mock.token-isolation',
    'C4',
    "Each token is one user with its own world: another token cannot see, change or delete this one's contacts and messages; a malformed Authorization header is refused with 401.",
  ),
  convention('mock.unix-seconds', 'C5', 'Timestamps are integer Unix seconds (UTC).'),
  convention(
    'mock.ids',
    'C6',
    'Ids are 16 characters of [A-Za-z0-9]; contact, conversation and message ids never collide.',
  ),
  convention(
    'mock.newest-first',
    'C7',
    'Lists are newest first (created_at descending, later creations first on ties).',
  ),
  convention(
    'mock.limit-bounds',
    'C8',
    '`limit` is an integer 1–100, default 10; anything else is refused with 400 parameter_invalid.',
  ),
  convention(
    'mock.cursor-walks',
    'C8',
    '`starting_after` and `ending_before` walk a list forward and backward with no duplicates or gaps; `has_more` tells whether items exist in the direction of travel; both at once, or an unknown cursor, are refused with 400.',
  ),
  convention(
    'mock.active-filter',
    'C9',
    '`active=true` lists only contacts with last_active_at set, `active=false` only those never active; other values are refused with 400.',
  ),
  convention(
    'mock.unknown-conversation',
    'C10',
    'A `conversation_id` that names no conversation of this user is refused with 404 not_found (also after its contact was deleted).',
  ),
  convention(
    'mock.sender-exact',
    'C11',
    "A message's `contact` is the conversation's contact as it is now, with exactly the six documented fields.",
  ),
  convention(
    'mock.request-bodies',
    'C12',
    'Bodies are accepted as form (with bracket keys), JSON and multipart fields.',
  ),
  convention(
    'mock.unknown-parameters',
    'C13',
    'Unknown or read-only parameters are refused with 400 parameter_unknown naming the parameter.',
  ),
  convention(
    'mock.field-rules',
    'C14',
    'Field limits (username 1–64, phone_number 1–32 of digits, spaces and +-()., avatar_url http(s), message 1–4000); an empty display_name on update sets it to null; strings are stored as sent.',
  ),
  convention(
    'mock.reactions',
    'C15',
    'Reactions: one object per name in order of first use, usernames in order of reaction and at most once per name; updates add; JSON bodies may send them too; bad names are refused.',
  ),
  convention(
    'mock.attachments',
    'C16',
    'An attachment is {id, message_id, filename, file_url, file_type, file_size, created_at} with defaults application/octet-stream and null; updates append.',
  ),
  convention(
    'mock.updated-at',
    'C17',
    '`updated_at` becomes the current time on every successful update; `read_at` stays null.',
  ),
  convention(
    'mock.cascade-at-once',
    'C18',
    'Deleting a contact deletes its conversation and every message in it at once.',
  ),
  convention(
    'mock.cors',
    'C19',
    'CORS for every origin: a preflight is answered 204 and allows Authorization and Content-Type.',
  ),
  convention(
    'mock.routing',
    'C20',
    'A trailing slash is tolerated, HEAD is answered as GET, and paths outside /v1 are 404 route_not_found.',
  ),
];

export function findRule(id: string): Rule | undefined {
  return RULES.find((rule) => rule.id === id);
}

/** The rules a rule set checks: `documented` only the document's, `mock` both. */
export function rulesOf(ruleSet: RuleSet): Rule[] {
  return RULES.filter((rule) => ruleSet === 'mock' || rule.ruleSet === 'documented');
}

/**
 * The rules of contacts (the document's sections 2.1 and 4.1).
 * Each rule's home: its id, section, sentence, and how the judge judges it (rules/rule.ts).
 */
import { documented, type Rule } from './rule';
import {
  CONTACT_FIELDS,
  fieldsInWords,
  inWords,
  optionalOf,
  quoted,
  requiredOf,
  stableOf,
  updatedWith,
} from './resources';

/** What an update of a contact takes (rules/resources.ts), which several sentences name. */
const CONTACT_UPDATES = updatedWith(CONTACT_FIELDS);

export const CONTACT_RULES: readonly Rule[] = [
  documented({
    id: 'contacts.fields',
    section: '2.1',
    sentence: `A contact has ${fieldsInWords(CONTACT_FIELDS)}.`,
    judged: {
      views:
        'Every contact in an accepted answer (retrieve, list, create, update) breaks it if a field is missing, or `id`, `username`, `phone_number`, `conversation_id` (not on a create) is no string, `avatar_url`/`display_name` no string or null, or `created_at` null.',
      lists:
        'Every item in `data` of a 2xx contacts list page (boolean `has_more`, array `data`) must be an object; an item that is not breaks it.',
    },
  }),
  documented({
    id: 'contacts.create',
    section: '4.1',
    sentence: `POST /v1/contacts with ${inWords(requiredOf(CONTACT_FIELDS))} (and optional ${optionalOf(CONTACT_FIELDS).join(', ')}) returns the created contact object, which can then be retrieved.`,
    judged: {
      writes:
        'An accepted contact create (form or JSON body) breaks it when a non-empty `username`, `phone_number`, `avatar_url` or `display_name` sent comes back changed other than by Unicode NFC, trimmed ends or (phone) dropped spaces and ().- marks.',
      views:
        "For a contact the session created and alone writes, whose create's answer showed a `display_name` other than the username, the next retrieve or list (lists: after the settle time) breaks it if it loses part of it beyond NFC and trimmed ends.",
      refusals:
        'A create not known to lack `username` or `phone_number` breaks it on a 5xx (not 502–504); so does any create refused (a 4xx but 401/403/404/405/413/429) with words (its strings, and keys but `message`, `error` and the like) naming an unsent `avatar_url` or `display_name` and no sent parameter.',
      traces:
        'Any accepted list, retrieve or update showing a contact (not the answer of a create, which shows the contact it made) breaks it when one has the username of an earlier refused create (a 4xx but 401/403/404/405/408/409/413/429) that sent `phone_number`, none accepted since, and the token neither made nor saw that contact before the refusal.',
    },
  }),
  documented({
    id: 'contacts.create.requires-username-and-phone-number',
    section: '4.1, 4.1 rule 7',
    sentence: '`username` and `phone_number` are required: a create without either is refused (some 4xx).',
    judged: {
      writes:
        'A contact create that is accepted (2xx) although its form or JSON body has no `username` key or no `phone_number` key breaks it.',
      refusals:
        'A create lacking `username` or `phone_number` (absent or empty) breaks it when answered a 5xx (not 502–504) instead of a refusal.',
      traces:
        'Any accepted list, retrieve or update showing a contact (not the answer of a create, which shows the contact it made) breaks it when one has the username of an earlier refused create (a 4xx but 401/403/404/405/408/409/413/429) that lacked `phone_number`, none accepted since, and the token neither made nor saw that contact before the refusal.',
    },
  }),
  documented({
    id: 'contacts.create.display-name-defaults-to-username',
    section: '2.1, 4.1 rule 4',
    sentence: 'When a contact is created without `display_name`, `display_name` defaults to the username.',
    judged: {
      writes:
        "An accepted contact create sent with a `username` and no `display_name` breaks it unless the answer's `display_name` equals the answer's `username` or the username sent (up to Unicode NFC and trimmed ends).",
      views:
        "For a contact the session created and alone writes, whose create's answer showed `display_name` equal to the username (sent or not), the next retrieve or list (lists: after the settle time) breaks it if it loses part of it beyond NFC and trimming.",
    },
  }),
  documented({
    id: 'contacts.create.last-active-at-null',
    section: '2.1, 4.1 rule 5',
    sentence: 'On creation the response carries `last_active_at` as null.',
    judged: {
      writes:
        'An accepted contact create whose answer has `last_active_at` anything but null (missing included) breaks it.',
    },
  }),
  documented({
    id: 'contacts.create.conversation-id',
    section: '1, 4.1 rule 5',
    sentence:
      'On creation the response carries a `conversation_id`; each contact is tied to one conversation through it.',
    judged: {
      writes:
        'An accepted contact create breaks it when the answer has no non-empty string `conversation_id`, or one the session already knows as the conversation of another contact not deleted.',
    },
  }),
  documented({
    id: 'contacts.retrieve',
    section: '4.1',
    sentence: 'GET /v1/contacts/:id returns the contact object.',
    judged: {
      answers:
        "An accepted GET of a contact (not HEAD, not the made-up unknown id) whose answer is a JSON object breaks it when the answer's `id` is not the id asked for.",
      views:
        "A retrieve of a known contact breaks it if `username`, `phone_number`, `avatar_url`, `conversation_id` or `created_at` differs from earlier answers, `last_active_at` is null or earlier than a prior retrieve's, or (sole writer) `display_name` differs from it.",
      refusals:
        "A retrieve of a contact (not the made-up unknown id) breaks it on a 5xx (not 502–504), or, in the kit's own run, when refused without query (a 4xx but 401/403/404/408/410/429) though the token made it and saw it alive, with no delete since that could have taken it.",
      traces:
        "A retrieve of a contact the session saw before, answered 404 or 410, breaks it when no delete (the token's, or one accepted without a token) has ended since the contact was last shown and none of the token's is on its way.",
    },
  }),
  documented({
    id: 'contacts.list',
    section: '4.1',
    sentence:
      'GET /v1/contacts lists the contacts: every contact that exists is listed once, as it is (the fields retrieve shows).',
    judged: {
      views:
        "A list breaks it if a known contact's `username`, `phone_number`, `avatar_url`, `conversation_id` or `created_at` differs from earlier answers, or, after a settled read (either one a list), `last_active_at` goes null or back or (sole writer) `display_name` differs.",
      lists:
        "A contacts list leaving out contacts seen alive (past settle time) breaks it: a not-full first page without `active` saying `has_more`=false, a still walk's end, or a not-full `active`+`limit` first page lacking contacts that choice just held. If a delete may have taken them, only once a later answer shows one alive.",
      refusals:
        'A contacts list asked for without `limit` (and not with `active` alone) breaks it when answered a 5xx (not 502–504); one asked for with no query at all breaks it when refused (a 4xx but 401/403/408/429).',
    },
  }),
  documented({
    id: 'contacts.update.display-name',
    section: '4.1',
    sentence: `PUT /v1/contacts/:id with ${inWords(quoted(CONTACT_UPDATES), 'or')} returns the updated contact object, and the new ${CONTACT_UPDATES.length === 1 && CONTACT_UPDATES[0] === 'display_name' ? 'name is' : 'values are'} kept.`,
    judged: {
      writes:
        "An accepted contact update (form or JSON body) breaks it when the answer's `id` is not the id in the path, or a non-empty `display_name` sent comes back changed other than by Unicode NFC and trimmed ends.",
      views:
        "Once an update the judge saw changed `display_name` (lists: after the settle time), a retrieve or list showing a value it had before an update breaks it; sole writer, the next read after an update's answer must not lose part of the name it showed.",
      refusals:
        'An update of a contact sending nothing beyond `display_name` breaks it on a 5xx (not 502–504); so does any update of a contact the judge knows refused (a 4xx but 401/403/404/405/413/429) with words (its strings, and keys but `message`, `error` and the like) naming an unsent `display_name` and no sent parameter.',
    },
  }),
  documented({
    id: 'contacts.update.only-display-name',
    section: '1, 4.1',
    sentence: `${inWords(quoted(CONTACT_UPDATES))} ${CONTACT_UPDATES.length === 1 ? 'is the only updatable attribute' : 'are the only updatable attributes'}: an update of any other attribute is refused or ignored, never applied.`,
    judged: {
      writes:
        'An accepted update of a contact the session knows that sends keys besides `display_name` breaks it when the answer shows a sent `username`, `phone_number`, `avatar_url`, `conversation_id` or `created_at` changed from the value known (to the value sent or to another).',
      refusals:
        'An update of a contact sending an attribute besides `display_name`: refused (a 4xx but 401/403/404/429), it counts as keeping the rule; answered a 5xx (not 502–504), it breaks it.',
    },
  }),
  documented({
    id: 'contacts.update.keeps-the-rest',
    section: '1, 4.1',
    sentence: `Updating ${inWords(CONTACT_UPDATES, 'or')} changes nothing else: ${inWords(stableOf(CONTACT_FIELDS))} stay as they were, in every view.`,
    judged: {
      writes:
        'An accepted update of a contact the session knows breaks it when a field it did not send (`username`, `phone_number`, `avatar_url`, `conversation_id`, `created_at`, or `display_name` unless an update of it overlapped) differs from the value known.',
      views:
        "The first retrieve (or list) after an update's answer breaks it when it shows `username`, `phone_number`, `avatar_url`, `conversation_id` or `created_at` other than the value held, where a retrieve (or list) showed them as held before the update; else that view's own rule is broken.",
    },
  }),
  documented({
    id: 'contacts.delete',
    section: '4.1',
    sentence:
      'DELETE /v1/contacts/:id deletes the contact: it can no longer be retrieved, and no list shows it (with or without `active`).',
    judged: {
      views:
        'A retrieve, list or accepted update that answers a contact whose delete the judge saw answered before the request (for a list, at least the settle time before) breaks it.',
      refusals:
        "A delete of a contact (not the made-up unknown id) breaks it on a 5xx (not 502–504), or, in the kit's own run, when refused without query (a 4xx but 401/403/404/408/410/429) though the token made it and saw it alive, with no delete since that could have taken it.",
      traces:
        "A retrieve answered 404/410 for a contact or message seen alive, that no delete named (nor its contact's, nor one of the token's on its way), breaks it when the token deleted a contact since, and no delete without a token, nor of a message of the record's conversation, came since.",
    },
  }),
  documented({
    id: 'contacts.delete.cascades-conversation',
    section: '1, 4.1 rule 6',
    sentence:
      'When a contact is deleted, its conversation is deleted too: its messages can no longer be retrieved or listed, nothing can be sent into it, and other conversations stay as they were.',
    judged: {
      views:
        'Any accepted answer (retrieve, list, send, update) showing a message in the conversation of a contact the judge saw deleted (knowing its conversation) at least the settle time before the request breaks it, unless that message was itself deleted.',
    },
  }),
  documented({
    id: 'contacts.unknown-id',
    section: '4.1 rule 7, 7',
    sentence: 'Retrieve, update and delete of an unknown contact id are refused (some 4xx).',
    judged: {
      refusals:
        'A retrieve, update or delete with a token (not HEAD, no trailing slash) of the contact id the kit made up to name no contact (`zz0unknown0contact0id`) breaks it when answered anything but a 4xx: a 2xx, a redirect or a 5xx.',
    },
  }),
  documented({
    id: 'contacts.list.active-parameter',
    section: '4.1 rule 2',
    sentence:
      'The list request takes a boolean query parameter `active` (its meaning is not shown): `active=true` and `active=false` are answered with a page.',
    judged: {
      lists:
        'A 2xx contacts list asked with `active` as its only parameter, once the list asked with nothing has answered a proper page for this token, breaks it if it lacks a boolean `has_more` or an array `data`.',
      refusals:
        'A contacts list with `active` alone counts as kept when 2xx and breaks it on a 5xx (not 502–504); so does a contacts list refused (a 4xx but 401/403/408/429) with only `active` true/false, or with a `limit` 1–10 too once that `active` was refused alone.',
    },
  }),
];

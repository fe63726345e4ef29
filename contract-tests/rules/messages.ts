/**
 * The rules of messages (sections 2.2, 2.3 and 4.2).
 * Each rule's home: its id, section, sentence, and how the judge judges it (rules/rule.ts).
 */
import { documented, type Rule } from './rule';
import { CONTACT_FIELDS, fieldsInWords, inWords, MESSAGE_FIELDS, notInSender, senderOf } from './resources';

export const MESSAGE_RULES: readonly Rule[] = [
  documented({
    id: 'messages.fields',
    section: '2.2',
    sentence: `A message has ${fieldsInWords(MESSAGE_FIELDS)}.`,
    judged: {
      views:
        'Every message in an accepted answer (retrieve, list, send, update) breaks it if a field is missing, or `id`, `conversation_id`, `message` is no string, `contact` no object, `reactions`/`attachments` no array, or `created_at` null.',
      lists:
        'Every item in `data` of a 2xx messages list page (boolean `has_more`, array `data`) must be an object; an item that is not breaks it.',
    },
  }),
  documented({
    id: 'messages.contact-fields',
    section: '2.2',
    sentence: `The \`contact\` of a message carries ${inWords(senderOf(CONTACT_FIELDS))}; it does not carry ${inWords(notInSender(CONTACT_FIELDS), 'or')}.`,
    judged: {
      views:
        "A message's `contact` (an object) in any accepted answer breaks it if it lacks or mistypes `id`, `username`, `phone_number` (strings), `avatar_url` (string or null), `created_at` (not null) or `last_active_at`, or carries `display_name` or `conversation_id`.",
    },
  }),
  documented({
    id: 'messages.contact-is-sender',
    section: '4.2 rule 3',
    sentence:
      'The `contact` object in a message describes the contact who sent it: the contact the conversation belongs to.',
    judged: {
      views:
        "A message in any accepted answer, in a conversation whose contact the judge knows, breaks it if its `contact` has another id, or a `username`, `phone_number`, `avatar_url` or `created_at` unlike that contact's (unless the contact's own answers disagreed).",
    },
  }),
  documented({
    id: 'messages.reactions-shape',
    section: '2.3',
    sentence:
      'Each element of `reactions` is an object that maps a reaction name (string) to an array of usernames (strings).',
    judged: {
      views:
        'A message in any accepted answer with a non-empty `reactions` array breaks it when an element is not an object, is an empty object, or maps a name to anything but an array of strings.',
    },
  }),
  documented({
    id: 'messages.send',
    section: '4.2',
    sentence:
      'POST /v1/messages with conversation_id and message returns the created message object, in that conversation, with that text; it can then be retrieved.',
    judged: {
      writes:
        "An accepted send (form or JSON body) breaks it when the answer's `conversation_id` is not the one sent, or the non-empty `message` sent comes back changed other than by Unicode NFC and trimmed ends.",
      views:
        "For a message the session sent and alone writes, its text never edited, the next retrieve or list after its send's answer (lists: after the settle time) breaks it if `message` loses part of the text that answer showed, beyond NFC and trimming.",
      refusals:
        'A send not known to lack `conversation_id` or `message` breaks it on a 5xx (not 502–504); so does any send refused (a 4xx but 401/403/404/405/413/429) with words (its strings, and keys but `message`, `error` and the like) naming an unsent `attachments` and no sent parameter.',
      traces:
        "In the kit's own run (every send's outcome seen, no POST on its way), a list or retrieve showing a message no accepted send made, unseen before, with the text (length, first 32 characters) of an earlier refused send (a 4xx but 401/403/404/405/408/409/413/429) into its conversation breaks it.",
    },
  }),
  documented({
    id: 'messages.send.requires-conversation-id-and-message',
    section: '4.2',
    sentence: '`conversation_id` and `message` are required: a send without either is refused (some 4xx).',
    judged: {
      writes:
        'A send that is accepted (2xx) although its form or JSON body has no `conversation_id` key or no `message` key breaks it.',
      refusals:
        'A send lacking `conversation_id` or `message` (absent or empty) breaks it when answered a 5xx (not 502–504) instead of a refusal.',
      traces:
        "In the kit's own run (every send's outcome seen, no POST on its way), a list or retrieve breaks it when it shows, in the conversation of a contact the token made, a message no accepted send made, unseen before, after a send there lacking `message` was refused (a 4xx but 401/403/404/405/408/409/413/429).",
    },
  }),
  documented({
    id: 'messages.send.new-message-defaults',
    section: '2.2, 4.2 rule 2',
    sentence:
      'A newly sent message has `reactions` and `attachments` as empty arrays (when none are sent), `read_at` null and `updated_at` null.',
    judged: {
      writes:
        "An accepted send breaks it when its answer's `read_at` or `updated_at` is not null, or (body readable) it shows reactions though no `reactions` were sent, or attachments though none were sent.",
      views:
        "A retrieve or list of a message the session sent and alone writes (the judge first saw it in its send's answer), which no update the judge saw touched, breaks it when `updated_at` is present and not null.",
    },
  }),
  documented({
    id: 'messages.send.attachments',
    section: '4.2',
    sentence:
      'A message may be sent with `attachments` (an array of attachment objects): the created message carries them.',
    judged: {
      writes:
        "An accepted send whose form or JSON body carries N `attachments` breaks it when the answer's `attachments` is not an array of exactly N items (only the count is compared).",
    },
  }),
  documented({
    id: 'messages.retrieve',
    section: '4.2',
    sentence: 'GET /v1/messages/:id returns the message object.',
    judged: {
      answers:
        "An accepted GET of a message (not HEAD, not the made-up unknown id) whose answer is a JSON object breaks it when the answer's `id` is not the id asked for.",
      views:
        "A retrieve of a message the judge knew before the request breaks it when its `conversation_id`, `created_at` or its `contact`'s id differs from what earlier answers showed.",
      refusals:
        "A retrieve of a message (not the made-up unknown id) breaks it on a 5xx (not 502–504), or, in the kit's own run, when refused without query (a 4xx but 401/403/404/408/410/429) though the token sent it and saw it, with no delete since of it, its contact or a message of its conversation.",
      traces:
        "A retrieve of a message the session saw before, answered 404 or 410, breaks it when no delete (the token's, or one accepted without a token) has ended since the message was last shown and none of the token's is on its way.",
    },
  }),
  documented({
    id: 'messages.list.conversation-filter',
    section: '4.2',
    sentence: 'GET /v1/messages with `conversation_id` restricts the list to that conversation.',
    judged: {
      views:
        "A list with `conversation_id` showing a message the judge knew before the request breaks it when that message's `conversation_id` or `created_at` differs from what earlier answers showed.",
      lists:
        "A messages page asked with `conversation_id` holding a message of another conversation breaks it; so does a not-full first page saying `has_more`=false, or a still walk's end, lacking messages of that conversation seen alive (if a delete may have taken them, only once a later answer shows one alive).",
      refusals:
        "A messages list with `conversation_id` (not `active` alone) breaks it on a 5xx (not 502–504), or, in the kit's own run, when refused (a 4xx but 401/403/408/429) though it names the conversation of a contact the token made and saw alive, with at most a `limit` 1–10 (not refused alone before).",
    },
  }),
  documented({
    id: 'messages.list.all-conversations',
    section: '4.2 rule 1',
    sentence: 'Without `conversation_id`, messages across all conversations are listed.',
    judged: {
      views:
        "A list without `conversation_id` showing a message the judge knew before the request breaks it when that message's `conversation_id` or `created_at` differs from what earlier answers showed.",
      lists:
        "A messages list without `conversation_id` breaks it when a not-full first page saying `has_more`=false, or a still walk's end, leaves out messages seen alive (past settle time); if a delete may have taken them, only once a later answer shows one alive.",
      refusals:
        'A messages list asked for without `conversation_id` or `limit` (and not with `active` alone) breaks it when answered a 5xx (not 502–504); one asked for with no query at all breaks it when refused (a 4xx but 401/403/408/429).',
    },
  }),
  documented({
    id: 'messages.update.edit-text',
    section: '1, 4.2 rule 4',
    sentence: 'Updating may edit the text (`message`): every view shows the new text.',
    judged: {
      writes:
        "An accepted message update sending a non-empty `message` (form or JSON body) breaks it when its answer's text is not that text, up to Unicode NFC and trimmed ends.",
      views:
        "Once an update the judge saw changed a message's text (lists: after the settle time), a retrieve or list showing a former text breaks it; sole writer, the next read after an edit must not lose part of the text the edit's answer showed.",
      refusals:
        'An update of a message sending neither `reactions` nor `attachments` breaks it on a 5xx (not 502–504), or, for a message the judge knows, when refused (a 4xx but 401/403/404/405/413/429) with words (its strings, and keys but `message`, `error` and the like) naming an unsent `message`, `reactions` or `attachments` and no sent parameter.',
    },
  }),
  documented({
    id: 'messages.update.add-reaction',
    section: '2.3, 4.2 rule 4',
    sentence:
      'Updating may add a reaction, sent as the form key `reactions[<reaction_name>][]` with a username as its value; it is added to what is there, never replacing a name or its usernames.',
    judged: {
      writes:
        'An accepted message update (form or JSON body) breaks it when its answer lacks a reaction username it sent, or lacks one known before the update under a name it sent, or under a name where other usernames now stand instead.',
      views:
        'When the last update the judge saw of a message sent a reaction, a retrieve or list after it (lists: after the settle time) breaks it by lacking a reaction name and username the message showed before.',
      refusals:
        'An update of a message sending `reactions` breaks it on a 5xx (not 502–504), or, for a message the judge knows, when refused (a 4xx but 401/403/404/405/413/429) with words (its strings, and keys but `message`, `error` and the like) naming an unsent `message` or `attachments` and no sent parameter.',
    },
  }),
  documented({
    id: 'messages.update.add-attachment',
    section: '4.2 rule 4',
    sentence: 'Updating may add an attachment: it is added to the attachments already there.',
    judged: {
      writes:
        'An accepted message update sending N `attachments` (form or JSON body) breaks it when its answer holds fewer than N plus the attachments the session knew the message had before the update (0 if unknown).',
      views:
        'When the last update the judge saw of a message sent an attachment, a retrieve or list after it (lists: after the settle time) breaks it by showing fewer attachments than the message had before.',
      refusals:
        'An update of a message sending `attachments` but not `reactions` breaks it on a 5xx (not 502–504), or, for a message the judge knows, when refused (a 4xx but 401/403/404/405/413/429) with words (its strings, and keys but `message`, `error` and the like) naming an unsent `message` or `reactions` and no sent parameter.',
    },
  }),
  documented({
    id: 'messages.update.keeps-the-rest',
    section: '1, 4.2 rule 4',
    sentence:
      'An update changes what it was sent and nothing else: conversation_id, created_at, the sender, the text when it was not sent, and the reactions and attachments already there stay, in every view.',
    judged: {
      writes:
        'An accepted update (form or JSON body) of a message the session knew before it was sent breaks it when it changes `conversation_id`, `created_at`, the sender or, unsent, the text; drops a known reaction of a name not sent; or, sending no attachments, shows fewer.',
      views:
        'After an update the judge saw (lists: after the settle time), a read lacking a reaction shown before (the last update sent none) or with fewer attachments (it sent none) breaks it; so does a moved `conversation_id`, `created_at` or sender in the first read of a kind (retrieve or list) after the answer of an update, where a read of that kind showed them as held before.',
    },
  }),
  documented({
    id: 'messages.update.updated-at',
    section: '2.2, 4.2 rule 4',
    sentence:
      '`updated_at` is when the message was last updated: once an update that edits the text, adds a reaction or adds an attachment is answered, it is a time, not null.',
    judged: {
      writes:
        'An accepted message update (form or JSON body) breaks it when it sent attachments, or a text or reaction new to the message as known before, and answers `updated_at` null; or when a first update answers it earlier than the known `created_at`.',
      views:
        "For a message the session alone writes, once an answer after its last update (that update's own, or a retrieve's) showed `updated_at`, a later retrieve or list (lists: after the settle time) showing another `updated_at` breaks it.",
    },
  }),
  documented({
    id: 'messages.delete.permanent',
    section: '1, 4.2 rule 5',
    sentence:
      'Deleting a message removes it permanently: it can no longer be retrieved, listed (in its conversation or across all) or updated.',
    judged: {
      views:
        'A retrieve, list or accepted update that answers a message whose delete the judge saw answered before the request (for a list, at least the settle time before) breaks it.',
      refusals:
        "A delete of a message (not the made-up unknown id) breaks it on a 5xx (not 502–504), or, in the kit's own run, when refused without query (a 4xx but 401/403/404/408/410/429) though the token sent it and saw it, with no delete since of it, its contact or a message of its conversation.",
      traces:
        "A retrieve answered 404/410 for a contact or message seen alive, that no delete named (nor its contact's, nor one of the token's on its way), breaks it when the token deleted a message since: one of the record's conversation, or any if no contact was deleted (and no delete went without a token).",
    },
  }),
  documented({
    id: 'messages.unknown-id',
    section: '7',
    sentence: 'Retrieve, update and delete of an unknown message id are refused (some 4xx).',
    judged: {
      refusals:
        'A retrieve, update or delete with a token (not HEAD, no trailing slash) of the message id the kit made up to name no message (`zz0unknown0message0id`) breaks it when answered anything but a 4xx: a 2xx, a redirect or a 5xx.',
    },
  }),
];

/**
 * The conventions the mock fills the document's gaps with (part 2, C1-C20): the `mock` rule set only.
 * Each rule's home: its id, section, sentence, and how the judge judges it (rules/rule.ts).
 */
import { convention, type Rule } from './rule';

export const CONVENTION_RULES: readonly Rule[] = [
  convention({
    id: 'mock.success-codes',
    section: 'C1',
    sentence: 'GET and PUT answer 200, POST 201, DELETE 204 with an empty body.',
    judged: {
      answers:
        'Every accepted (2xx) request of a documented operation sent with a token (not the made-up unknown ids) breaks it unless GET, HEAD and PUT answer 200, POST 201 and DELETE 204; a DELETE that answers a non-empty body breaks it too.',
    },
  }),
  convention({
    id: 'mock.error-body',
    section: 'C2',
    sentence:
      'Errors are flat JSON objects {type, code, message, param?}: `type` invalid_request for 4xx, a known `code`, a human `message`, `param` naming the parameter at fault.',
    judged: {
      conventions:
        'Every 4xx or 5xx answer with a body kept (any path, with or without a token; not HEAD or a preflight) must be a flat JSON object: `type` invalid_request (api_error for 5xx), a `code` the conventions list, a non-empty `message`, no keys beyond type/code/message/param, no stack trace.',
    },
  }),
  convention({
    id: 'mock.error-statuses',
    section: 'C3',
    sentence:
      '400 bad parameter or body, 401 with WWW-Authenticate: Bearer, 404 unknown id or route, 405 with Allow, 413 body over 100 kB, 415 unsupported content type.',
    judged: {
      answers:
        'A request of a documented operation (HEAD as GET) sent without Authorization breaks it when answered anything but 401 (only the status is judged here).',
      conventions:
        'Any 401 answer (any path) without a `WWW-Authenticate` header starting with Bearer, and any 405 answer without an `Allow` header, breaks it.',
    },
  }),
  convention({
    id: 'mock.token-isolation',
    section: 'C4',
    sentence:
      "Each token is one user with its own world: another token cannot see, change or delete this one's contacts and messages; a malformed Authorization header is refused with 401.",
    judged: {
      answers:
        'A request of a documented operation whose Authorization is there but not a well-formed `Bearer <token>` (scheme in any case, RFC 6750 token characters) breaks it when accepted (2xx).',
      conventions:
        "A retrieve, update or delete of a contact or message id that the judge saw created with another Authorization header breaks it when answered 2xx (this token reached the other's record).",
    },
  }),
  convention({
    id: 'mock.unix-seconds',
    section: 'C5',
    sentence: 'Timestamps are integer Unix seconds (UTC).',
    judged: {
      writes:
        "An accepted message send, or contact create with a form or JSON body, breaks it when the answer's `created_at` is not an integer within 300 seconds of the current Unix second.",
      views:
        'Every contact an accepted answer shows (retrieve, list, create, update) breaks it when a numeric `created_at` or `last_active_at` is negative or 10^11 or more (not Unix seconds).',
      conventions:
        'Every message in a 2xx answer (retrieve, list page, send, update): a numeric `created_at`, `read_at` or `updated_at` that is negative or 1e11 or more (e.g. milliseconds) breaks it.',
    },
  }),
  convention({
    id: 'mock.ids',
    section: 'C6',
    sentence: 'Ids are 16 characters of [A-Za-z0-9]; contact, conversation and message ids never collide.',
    judged: {
      views:
        "Every contact an accepted answer shows (retrieve, list, create, update) breaks it when its `id` or `conversation_id` is not 16 characters of [A-Za-z0-9], or its id was seen before as a conversation's or message's id.",
      conventions:
        "Every message in a 2xx answer: its `id`, `conversation_id`, its contact's `id` and each attachment's `id`, when present, must be 16 characters of A-Z, a-z, 0-9; a message id the judge saw earlier as a contact or conversation id breaks it too.",
    },
  }),
  convention({
    id: 'mock.newest-first',
    section: 'C7',
    sentence: 'Lists are newest first (created_at descending, later creations first on ties).',
    judged: {
      conventions:
        'Every 2xx list page (contacts or messages): an item whose numeric `created_at` is greater than that of the item before it breaks it (the order of items with equal `created_at` is not judged).',
    },
  }),
  convention({
    id: 'mock.limit-bounds',
    section: 'C8',
    sentence: '`limit` is an integer 1–100, default 10; anything else is refused with 400 parameter_invalid.',
    judged: {
      conventions:
        'A 2xx list page breaks it when its `limit` is not a plain whole number 1–100 (e.g. `limit=0`, `limit=abc` accepted), or when it says `has_more`=true but holds a number of items other than the limit (10 without one).',
    },
  }),
  convention({
    id: 'mock.cursor-walks',
    section: 'C8',
    sentence:
      '`starting_after` and `ending_before` walk a list forward and backward with no duplicates or gaps; `has_more` tells whether items exist in the direction of travel; both at once, or an unknown cursor, are refused with 400.',
    judged: {
      conventions:
        'A 2xx list page asked with `starting_after` or `ending_before` breaks it when both were sent together, or when the page holds the very item its cursor names (no walk-wide duplicates, gaps or unknown cursors are judged here).',
    },
  }),
  convention({
    id: 'mock.active-filter',
    section: 'C9',
    sentence:
      '`active=true` lists only contacts with last_active_at set, `active=false` only those never active; other values are refused with 400.',
    judged: {
      conventions:
        'A 2xx contacts list page asked with `active`: a value other than `true`/`false` accepted, an `active=true` page listing a contact whose `last_active_at` is null, or an `active=false` page listing one whose `last_active_at` is not null, breaks it.',
    },
  }),
  convention({
    id: 'mock.unknown-conversation',
    section: 'C10',
    sentence:
      'A `conversation_id` that names no conversation of this user is refused with 404 not_found (also after its contact was deleted).',
    judged: {
      conventions:
        'A message send or messages list naming a `conversation_id` whose contact the judge saw deleted (that delete answered before the request began) breaks it unless answered 404 (the error `code` is not checked).',
    },
  }),
  convention({
    id: 'mock.sender-exact',
    section: 'C11',
    sentence:
      "A message's `contact` is the conversation's contact as it is now, with exactly the six documented fields.",
    judged: {
      conventions:
        "Every message in a 2xx answer whose `contact` is an object: a key beyond the six documented sender fields, or a `username`, `phone_number`, `avatar_url` or `created_at` other than the judge last learnt for the conversation's contact, breaks it.",
    },
  }),
  convention({
    id: 'mock.request-bodies',
    section: 'C12',
    sentence: 'Bodies are accepted as form (with bracket keys), JSON and multipart fields.',
    judged: {
      conventions:
        'Any request (any path) sent with a Content-Type of application/x-www-form-urlencoded, application/json or multipart/form-data that is answered 415 breaks it.',
    },
  }),
  convention({
    id: 'mock.unknown-parameters',
    section: 'C13',
    sentence: 'Unknown or read-only parameters are refused with 400 parameter_unknown naming the parameter.',
    judged: {
      conventions:
        'An accepted (2xx) list, retrieve, create, update or delete whose query, or readable form/JSON body for POST and PUT, carries a parameter the operation does not take (e.g. anything but `display_name` on a contact update) breaks it.',
    },
  }),
  convention({
    id: 'mock.field-rules',
    section: 'C14',
    sentence:
      'Field limits (username 1–64, phone_number 1–32 of digits, spaces and +-()., avatar_url http(s), message 1–4000); an empty display_name on update sets it to null; strings are stored as sent.',
    judged: {
      writes:
        'Accepted contact creates and updates and message sends (form or JSON body) break it by accepting a value beyond the field limits (`display_name` over 64 too), not storing `phone_number` or `avatar_url` as sent, or not making an empty `display_name` the username (create) or null (update).',
      conventions:
        'Accepted contact creates: a `username` not 1–64 characters, a `phone_number` not 1–32 of digits, spaces, +-()., a non-http(s) `avatar_url`, phone or avatar not stored as sent, or an empty `display_name` not giving the username; creates and updates: a `display_name` over 64; updates: an empty one not set to null.',
    },
  }),
  convention({
    id: 'mock.reactions',
    section: 'C15',
    sentence:
      'Reactions: one object per name in order of first use, usernames in order of reaction and at most once per name; updates add; JSON bodies may send them too; bad names are refused.',
    judged: {
      conventions:
        'Every message in a 2xx answer with a `reactions` array: an element not holding exactly one name, a name repeated or not 1–64 of a-z, 0-9, _+-, a username twice under one name, or names (or usernames) the judge saw earlier not shown first in their earlier order, breaks it.',
    },
  }),
  convention({
    id: 'mock.attachments',
    section: 'C16',
    sentence:
      'An attachment is {id, message_id, filename, file_url, file_type, file_size, created_at} with defaults application/octet-stream and null; updates append.',
    judged: {
      conventions:
        "Every message in a 2xx answer: an attachment that is not an object with exactly `id`, `message_id`, `filename`, `file_url`, `file_type`, `file_size`, `created_at`, or whose `message_id` is not the message's, `file_type` not a string, or `file_size` not null or a whole number ≥ 0, breaks it.",
    },
  }),
  convention({
    id: 'mock.updated-at',
    section: 'C17',
    sentence: '`updated_at` becomes the current time on every successful update; `read_at` stays null.',
    judged: {
      writes:
        "An accepted message update (form or JSON body) breaks it when its answer's `updated_at` is not an integer within 300 seconds of the current Unix second, or is earlier than its `created_at`.",
    },
  }),
  convention({
    id: 'mock.cascade-at-once',
    section: 'C18',
    sentence: 'Deleting a contact deletes its conversation and every message in it at once.',
    judged: {
      views:
        'Any accepted answer (retrieve, list, send, update) showing a message in the conversation of a contact the judge saw deleted (knowing its conversation) before the request, with no settle time, breaks it unless that message was itself deleted.',
    },
  }),
  convention({
    id: 'mock.cors',
    section: 'C19',
    sentence: 'CORS for every origin: a preflight is answered 204 and allows Authorization and Content-Type.',
    judged: {
      conventions:
        'Any answer to a request carrying Origin without Access-Control-Allow-Origin breaks it; so does a preflight (OPTIONS with Access-Control-Request-Method) not answered 204, without Access-Control-Allow-Origin, or not allowing the Authorization and Content-Type headers (or *).',
    },
  }),
  convention({
    id: 'mock.routing',
    section: 'C20',
    sentence:
      'A trailing slash is tolerated, HEAD is answered as GET, and paths outside /v1 are 404 route_not_found.',
    judged: {
      conventions:
        "A path outside /v1 (other than the mock's /__mock/ control routes and /openapi.json) answered other than 404, or with a body whose `code` is not route_not_found, breaks it; so does an API path with a trailing slash answered 404 route_not_found (any 404 on the list paths).",
    },
  }),
];

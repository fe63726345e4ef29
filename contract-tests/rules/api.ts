/**
 * The rules of the whole API: versioning, authorization, the form of requests and answers, ids.
 * Each rule's home: its id, section, sentence, and how the judge judges it (rules/rule.ts).
 */
import { documented, type Rule } from './rule';

export const API_RULES: readonly Rule[] = [
  documented({
    id: 'api.v1-prefix',
    section: '9',
    sentence:
      'The version is carried in the path prefix /v1 on every endpoint: a list asked for there with nothing is not answered "not found" (404, 410) nor sent elsewhere (a redirect).',
    judged: {
      answers:
        'A GET with a token of /v1/contacts or /v1/messages with no query and no trailing slash breaks it when answered 404 or 410, or redirected (301, 302, 303, 307, 308) to a Location whose path holds no `/v1/`; any other answer keeps it.',
    },
  }),
  documented({
    id: 'api.auth-required',
    section: '4, 5',
    sentence:
      'Every endpoint requires the Authorization header; every request carries `Authorization: Bearer <ACCESS_TOKEN>`. A request without it is refused (some 4xx) and changes nothing.',
    judged: {
      answers:
        "A request of a documented operation (HEAD as GET) sent without Authorization breaks it when answered 2xx, 1xx or 3xx, or a 5xx other than a gateway's 502–504; any 4xx keeps it.",
      lists:
        "A not-full first page saying `has_more`=false (no `active`), or a still walk's end, that leaves out records seen alive is charged here when each was named by a DELETE refused 401/403 before it, or is a message a DELETE accepted without Authorization may since have taken.",
      walks:
        "A walk's last page (has_more=false), with no write of the token between, breaks it when it lacks records seen alive before the walk (and not held by the same list shown whole), each named by a DELETE answered 401 or 403, or (messages) gone after an accepted DELETE without Authorization.",
      traces:
        "A retrieve answered 404/410 for a contact or message seen alive, that no delete named (nor its contact's, nor one of the token's on its way), breaks it when a delete sent without a token was accepted since: that delete took it.",
    },
  }),
  documented({
    id: 'api.form-parameters',
    section: '2',
    sentence:
      'Request parameters are sent as form-style key/value parameters (bodies of POST and PUT, query of GET).',
    judged: {
      refusals:
        'A create, send or update with a form body keeps it when accepted; answered 415, or refused (a 4xx but 401/403/404/405/408/413/429) by a text about JSON, content/media type or urlencoding naming no sent parameter, it breaks it; so does a JSON write accepted with parameters refused as a form.',
    },
  }),
  documented({
    id: 'api.json-objects',
    section: '2',
    sentence: 'Responses are JSON objects (every successful list, create, retrieve and update).',
    judged: {
      answers:
        'An accepted (2xx) list, create, retrieve or update sent with a token (not HEAD, not the made-up unknown ids) whose body was kept breaks it when that body is not a JSON object (an array, a scalar, empty or not JSON).',
    },
  }),
  documented({
    id: 'api.integer-timestamps',
    section: '2',
    sentence: 'Timestamps appear in responses as integer numbers.',
    judged: {
      views:
        "Every contact and message in an accepted answer (retrieve, list, create, send, update) breaks it when a timestamp present and not null (`created_at`, `last_active_at`, `read_at`, `updated_at`, also in a message's `contact`) is not an integer.",
    },
  }),
  documented({
    id: 'api.unique-ids',
    section: '2.1, 2.2',
    sentence:
      '`id` is the unique identifier of a contact (of a message): no two contacts, and no two messages, ever share one, and the id of a deleted record never names a record created after it.',
    judged: {
      ids: "An accepted create (contact or message) breaks it when its `id` is that of a record of its kind deleted or shown before the create was sent, or one a concurrent create's answer gave to a record of another username (contact) or conversation or text (message).",
    },
  }),
];

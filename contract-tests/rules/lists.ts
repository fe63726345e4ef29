/**
 * The rules every list keeps, of contacts and of messages (sections 2.4, 4.1, 4.2 and 8).
 * Each rule's home: its id, section, sentence, and how the judge judges it (rules/rule.ts).
 */
import { documented, type Rule } from './rule';

export const LIST_RULES: readonly Rule[] = [
  documented({
    id: 'lists.page-fields',
    section: '2.4',
    sentence: 'A list returns a page of results: `has_more` (boolean) and `data` (array).',
    judged: {
      lists:
        'Every 2xx list answer (contacts or messages) that is a JSON object breaks it if `has_more` is missing or not a boolean, or `data` is missing or not an array (except a contacts list with `active` alone, once the plain list answered proper pages).',
    },
  }),
  documented({
    id: 'lists.default-page-size',
    section: '4.1 rule 1, 4.2 rule 1, 8',
    sentence: 'A list returns at most ten items per page by default (contacts and messages).',
    judged: {
      lists:
        'A 2xx list page asked without `limit` (a first or a later page) that holds more than 10 records breaks it.',
    },
  }),
  documented({
    id: 'lists.has-more',
    section: '2.4',
    sentence:
      '`has_more` is true when more items exist beyond this page, false when none do (also on a last page that is exactly full).',
    judged: {
      lists:
        "A full first page (its limit, the server's page size, or 10) saying `has_more`=false yet lacking records seen alive (or, with `active`+`limit`, contacts that choice just held) breaks it; so does an empty page asked with the last id of an earlier `has_more`=true page, unless a delete came since.",
      walks:
        'The last page (has_more=false) of a walk with no write of the token between breaks it when records seen alive before the walk are missing and the page is full, or the walk showed exactly the first records of the same list shown whole and the missing come after.',
    },
  }),
  documented({
    id: 'lists.limit',
    section: '4.1, 4.2, 8',
    sentence: '`limit` reduces the number of items returned per list call (`limit=1` gives one item).',
    judged: {
      lists:
        "A 2xx list page holding more items than its whole-number `limit` breaks it; so does an `active`+`limit` contacts page listing a token's contact that the same `active` choice, shown whole just before with no write between, did not hold.",
      walks:
        'A walk with `limit` and no write of the token between, that ended showing every record seen alive, breaks it when its first page held fewer than the limit (with has_more true) though some page of the same list held more.',
      refusals:
        'A list with `limit` (not `active` alone; on messages, no `conversation_id`) breaks it on a 5xx (not 502–504), or when refused (a 4xx but 401/403/408/429) with `limit` 1–10 and at most `active` true/false. A refused list of several such parameters is charged to the first refused alone before.',
    },
  }),
  documented({
    id: 'lists.pages',
    section: '2.4, 4.1 rule 1, 4.2 rule 1',
    sentence:
      'A paginated list, walked page by page with the server’s own way to the next page (and back, where it has one), shows every item once: no item twice, none left out.',
    judged: {
      lists:
        "A page asked with the last id of an earlier `has_more`=true page of the same list that repeats some of its items (not just that page again) breaks it; so does an `active` contacts page asked with a paging parameter and no `limit` listing a token's contact the same choice, shown whole just before, lacked.",
      walks:
        "Page-by-page walks with no write of the token between break it when a next page repeats an earlier page's record, the walk ends lacking records the same list shown whole held (or seen alive, after a page shorter than the first), or an `ending_before` page is not the records just before its cursor.",
    },
  }),
];

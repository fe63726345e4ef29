import {
  asPage,
  idOf,
  type Page,
  walk as walkOn,
  type PageSource,
  type Query,
  type Walk,
  type WalkOptions,
} from '../../common/paging';
import { walkBack as walkBackOn, type BackWalk } from '../../common/paging-back';
import { observePaging } from '../profile/observe';
import { config } from '../http/config';
import { send } from '../http/http';
import type { RuleContext } from './harness';
import { observe } from '../profile/choices';

/**
 * The kit's lists, walked by the paging discovery of common/paging.ts (the account recorder's
 * too) with the kit's own requests: each one is a test's exchange, in its report.
 */
const kit: PageSource = {
  get baseUrl() {
    return config.baseUrl;
  },
  get: (path, query) => send('GET', path, { query }),
  observe,
};

export { asPage, idOf };
export type { Walk } from '../../common/paging';

export async function walk(path: string, query?: Query, options?: WalkOptions): Promise<Walk> {
  const walked = await walkOn(kit, path, query, options);
  observePaging(path);
  return walked;
}

export const walkBack = (path: string, query: Query, forward: Walk): Promise<BackWalk> =>
  walkBackOn(kit, path, query, forward);

/**
 * The conversation filter is a rule of its own, which other rules lean on when they list one
 * conversation: a message of another conversation seen on any page they read breaks it, and fails
 * it there, with that page's exchange (the rule that was reading is then not run past that point).
 */
export function failOnStray(t: RuleContext, pages: Page[], conversations: string[]): void {
  for (const page of pages) {
    const stray = page.data.find((item) => !conversations.includes(String(item.conversation_id)));
    if (stray !== undefined)
      t.fail(
        `the list by conversation_id shows a message of conversation ${JSON.stringify(stray.conversation_id)}`,
        page.exchange,
        { rule: 'messages.list.conversation-filter', check: 'every page of the filtered list' },
      );
  }
}

/**
 * A walk of a list only the kit writes to (its own conversation) that ended on an empty page after
 * a page saying has_more true, by the way the server pages: has_more broke its rule, whichever
 * rule was walking.
 */
export function failOnEmptyAfterMore(t: RuleContext, walked: Walk, what: string): void {
  if (!walked.emptyAfterMore) return;
  const last = walked.pages.at(-1);
  t.fail(
    `${what}: page ${walked.pages.length} said has_more=true, and the next page was empty (${walked.emptyAfterMore.exchange.method} ${walked.emptyAfterMore.exchange.path})`,
    last?.exchange,
    { rule: 'lists.has-more', check: 'has_more true, then an empty next page' },
  );
}

import {
  asPage,
  idOf,
  walk as walkOn,
  type PageSource,
  type Query,
  type Walk,
  type WalkOptions,
} from '../../common/paging';
import { walkBack as walkBackOn, type BackWalk } from '../../common/paging-back';
import { observePaging } from '../profile/observe';
import { config } from '../http/config';
import { routeOf } from '../http/exchange';
import { send } from '../http/http';
import { heldStill, inQuiet } from '../http/stillness';
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

/** The same, for a list that every test's writes reach: it knows when the kit's writes moved it. */
const shared: PageSource = {
  get baseUrl() {
    return config.baseUrl;
  },
  get: kit.get,
  observe,
  heldStill,
};

/**
 * A list that other tests write to while this one walks it: the contacts list (any filter), and
 * the messages of all conversations. A conversation's own list is written by its test alone; a
 * path that is no list (a record's, or an unknown one) is nobody's shared list.
 */
function isShared(path: string, query: Query | undefined): boolean {
  const { kind } = routeOf(path);
  return kind === 'contacts' || (kind === 'messages' && !query?.conversation_id);
}

/** How often a walk of a shared list is made again when it did not hold still. */
const STILL_ATTEMPTS = 3;

export { asPage, idOf };
export type { Walk } from '../../common/paging';

/**
 * Walks a list with the kit's requests. A list other tests write to is walked in a quiet window
 * (http/stillness.ts), and again if it moved all the same: a walk it returns with `still: false`
 * moved every time, and what it shows at page boundaries is not to be judged.
 */
export async function walk(path: string, query?: Query, options?: WalkOptions): Promise<Walk> {
  let walked: Walk;
  if (!isShared(path, query)) walked = await walkOn(kit, path, query, options);
  else
    for (let attempt = 1; ; attempt++) {
      walked = await inQuiet(() => walkOn(shared, path, query, options));
      if (walked.still !== false || attempt === STILL_ATTEMPTS) break;
    }
  observePaging(path);
  return walked;
}

export const walkBack = (path: string, query: Query, forward: Walk): Promise<BackWalk> =>
  walkBackOn(kit, path, query, forward);

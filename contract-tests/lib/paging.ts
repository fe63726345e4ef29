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
import { config } from './config';
import { send } from './http';
import { observe } from './observations';

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

import type { Worlds } from '../store/worlds';
import type { ConventionsLayer } from './conventions';
import type { ControlExchange } from './control';
import type { Route } from './routes';
import type { WorldKeeper } from './storage';
import type { Latency } from './switches';

/**
 * What answering a request needs beyond the request itself: made once by createCore (./index.ts)
 * and handed to the named steps of an answer (./dispatch.ts, ./api.ts).
 */
export interface CoreContext {
  /** Milliseconds added to every API answer (`--latency`). */
  readonly latency: Latency | undefined;
  /** The token of an `Authorization` header, or the 401 refusal. */
  authenticate(header: string | undefined): string;
  readonly log: (line: string) => void;
  /** Where each token's world is kept between page loads (a browser's localStorage), if anywhere. */
  readonly kept: WorldKeeper | undefined;
  /** The routes outside /v1 and /__mock: the OpenAPI document. */
  readonly openApi: readonly Route<unknown>[];
  /** Settles once the seeded world (and the simulator) is loaded. */
  readonly ready: Promise<void>;
  /** Whether `ready` has settled: then requests need not wait for it. */
  settled(): boolean;
  /** The conventions, the worlds and the routes; throws until `ready` has settled. */
  current(): Loaded;
}

/** The conventions in force, the worlds, and the routes that stand on them. */
export interface Loaded {
  conventions: ConventionsLayer;
  worlds: Worlds;
  api: Route[];
  control: Route<ControlExchange>[];
}

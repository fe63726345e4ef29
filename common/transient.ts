/**
 * Transient answers, for both packages: the contract kit's client (contract-tests/http/http.ts)
 * and the account walker's (common/http.ts) send through `withRetries`, so that which answers
 * are transient, how Retry-After is read and how long to wait are said once.
 *
 * A transient answer is none of the server's verdicts on the request: a gateway's 502, 503 or
 * 504 (a load balancer's, with or without Retry-After), or no answer at all because the
 * connection was reset, hung up, refused or timed out. A request that may be sent twice (an
 * idempotent method) is sent again, after a bounded exponential backoff that honours
 * Retry-After. One whose effect is unknown (a POST) is sent again only once its caller has
 * looked up that it took no effect (`reconcile`). A 429 says that nothing was done: any method
 * waits it out, and so does every other request of the process to the same server (RateGate).
 * Only the final, real answer is handed back; one that stays transient past the bound is the
 * caller's `giveUp` error.
 */

/** The statuses that a gateway gives for a server it could not reach or that was too slow. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** Methods that do the same sent once or twice (the API's PUT and DELETE are idempotent). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Sends of one request at most while its answers are transient. */
export const MAX_ATTEMPTS = 5;
/** The longest single wait, whatever Retry-After says. */
export const MAX_WAIT_MS = 10_000;
/** The first wait without Retry-After; each next one doubles (200, 400, 800, 1600 ms). */
const FIRST_BACKOFF_MS = 200;
/**
 * A 429: the waits at most for one request, and the wait when it gives no Retry-After. A server
 * that limits a token's requests per window answers some of a burst 429 in each window, so one
 * request may meet the limit several times before its turn; the gate below keeps that rare.
 */
const RATE_LIMIT_WAITS = 10;
const RATE_LIMIT_WAIT_MS = 1000;

/**
 * The wait that a 429 asked for, kept for every request of this process to the same server: a
 * request sent while another waits out the limit would only meet it again (and use up the next
 * window before the one that waited gets its turn). Once a 429 came, no request to that origin
 * is sent before its Retry-After has passed.
 */
export class RateGate {
  private resumeAt = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /** A 429 asked for `waitMs` from now. */
  hold(waitMs: number): void {
    this.resumeAt = Math.max(this.resumeAt, this.clock() + waitMs);
  }

  /** How long a request must still wait before it is sent (0 when the gate is open). */
  waitLeft(): number {
    return Math.max(0, this.resumeAt - this.clock());
  }
}

const gates = new Map<string, RateGate>();

/** The gate of this process for the server that `target` (a URL) names. */
function gateFor(target: string): RateGate {
  let origin: string;
  try {
    origin = new URL(target).origin;
  } catch {
    origin = target;
  }
  let gate = gates.get(origin);
  if (!gate) gates.set(origin, (gate = new RateGate()));
  return gate;
}

/**
 * Errors that say the connection failed on its way, not that the request is wrong: resets and
 * hang-ups (a kept-alive socket the server closed, a balancer that dropped it), a broken pipe, a
 * refused connection (a server restarting), timeouts (`no answer within` is both clients' word).
 * Others (a host that does not resolve, a certificate refused) are not sent again.
 */
const TRANSIENT_ERRORS =
  /ECONNRESET|socket hang up|EPIPE|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|ESOCKETTIMEDOUT|UND_ERR_SOCKET|other side closed|no answer within/i;

export const isTransientStatus = (status: number): boolean => TRANSIENT_STATUSES.has(status);
export const isTransientError = (reason: string): boolean => TRANSIENT_ERRORS.test(reason);

/**
 * Retry-After (RFC 9110 10.2.3) as a wait in ms: delay-seconds, or an HTTP-date (a date in the
 * past is no wait), capped at MAX_WAIT_MS; undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^[0-9]+$/.test(text)) return Math.min(MAX_WAIT_MS, Number(text) * 1000);
  // An HTTP-date names its weekday and month: a bare number in another form is no date.
  const date = /[a-z]{3}/i.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(date) ? undefined : Math.min(MAX_WAIT_MS, Math.max(0, date - now));
}

/**
 * A wait with a little added at random (up to a fifth, and 25 ms): requests that met the same
 * limit or failing hop at once do not all come back at the same moment to meet it again.
 */
const jittered = (ms: number): number => ms + Math.floor(Math.random() * (ms / 5 + 25));

/** The wait before the `retry`th send again (1-based): Retry-After when given, else the backoff. */
export function waitBefore(retry: number, retryAfter: string | undefined, now = Date.now()): number {
  return retryAfterMs(retryAfter, now) ?? Math.min(MAX_WAIT_MS, FIRST_BACKOFF_MS * 2 ** (retry - 1));
}

/** What the policy reads of an answer. */
export interface Answered {
  status: number;
  headers: Record<string, string>;
}

export interface RetryHooks<T extends Answered> {
  /** Sends the request once; rejects when there is no answer. */
  once(): Promise<T>;
  /** Why an error of `once` is no answer at all (its reason, in one line), or undefined for any other error. */
  noAnswer(error: unknown): string | undefined;
  /** Told of each transient answer, in one line (method, path, status or error). */
  onTransient?(line: string): void;
  /**
   * For a method that is not idempotent, after a transient answer: finds out whether the request
   * took effect all the same. Throws when it did (or when it cannot tell); returns when it did
   * not, and then it is sent again. Without it, such a request is never sent again.
   */
  reconcile?(line: string): Promise<void>;
  /** The error thrown when the answers stay transient (or the effect is unknown): `line` says why. */
  giveUp(line: string, noAnswer: boolean): Error;
  sleep?(ms: number): Promise<void>;
  /** Where the waits that 429s ask for are shared; the process's gate for the target's origin by default. */
  gate?: RateGate;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends `method target` until it gets a real answer, within the policy's bounds (see above). */
export async function withRetries<T extends Answered>(
  method: string,
  target: string,
  hooks: RetryHooks<T>,
): Promise<T> {
  // The policy's wait; the clock's own adds a little at random (jittered).
  const sleep = hooks.sleep ?? ((ms: number) => pause(jittered(ms)));
  const gate = hooks.gate ?? gateFor(target);
  let transient = 0;
  let rateLimited = 0;
  for (;;) {
    let answer: T | undefined;
    let line: string;
    const held = gate.waitLeft();
    if (held > 0) await sleep(held);
    try {
      answer = await hooks.once();
    } catch (error) {
      const reason = hooks.noAnswer(error);
      if (reason === undefined) throw error;
      line = `${method} ${target}: ${reason}`;
      if (!isTransientError(reason)) throw hooks.giveUp(line, true);
    }
    if (answer?.status === 429) {
      if (rateLimited++ >= RATE_LIMIT_WAITS)
        throw hooks.giveUp(
          `${method} ${target}: still rate limited (429) after ${RATE_LIMIT_WAITS} waits`,
          false,
        );
      gate.hold(retryAfterMs(answer.headers['retry-after']) ?? RATE_LIMIT_WAIT_MS);
      continue;
    }
    if (answer && !isTransientStatus(answer.status)) return answer;
    if (answer) line = `${method} ${target} → ${answer.status}`;
    transient += 1;
    hooks.onTransient?.(line!);
    const idempotent = IDEMPOTENT_METHODS.has(method);
    if (!idempotent && !hooks.reconcile)
      throw hooks.giveUp(`${line!}: its outcome is unknown, and it is not sent again`, !answer);
    if (transient >= MAX_ATTEMPTS)
      throw hooks.giveUp(`${line!} (still transient after ${MAX_ATTEMPTS} attempts)`, !answer);
    await sleep(waitBefore(transient, answer?.headers['retry-after']));
    if (!idempotent) await hooks.reconcile!(line!);
  }
}

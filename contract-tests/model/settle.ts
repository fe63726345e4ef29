import { config } from '../http/config';
import { observe } from '../profile/choices';
import { RuleFailure } from './harness';

/**
 * Lists may be eventually consistent: a record shows in them some time after it is written. With
 * a settle window (--settle-ms), a reading of lists that disagrees with what the kit wrote is
 * made again, with backoff, until it agrees or the window ends; only then is it a failure.
 * The same window covers a cascade's indirect effects: the messages of a deleted contact may
 * still be retrieved by id within it. What a request names directly (the deleted contact
 * itself, a record just written) is never waited for, so callers wrap only lists and cascades. The longest wait that
 * ended in agreement is reported as the server's settle time.
 */
export async function settled<T>(read: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let pause = 25;
  let again = false;
  for (;;) {
    try {
      const result = await read();
      if (again) observeSettle(Date.now() - started);
      return result;
    } catch (error) {
      if (!(error instanceof RuleFailure) || Date.now() - started + pause > config.settleMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 400);
      again = true;
    }
  }
}

/**
 * Waits out the settle window (--settle-ms) once what a test wrote is answered: the test of a rule
 * the judge decides reads only after it, so that the judge holds its views to all that was written
 * (within the window, the judge lets a view lag).
 */
export async function pastTheWindow(): Promise<void> {
  if (config.settleMs > 0) await new Promise((resolve) => setTimeout(resolve, config.settleMs));
}

/** The server profile's key for the longest wait, `<n> ms` rounded up to 100 ms. */
export const SETTLED = 'lists settled within';

let longestSettle = 0;
function observeSettle(ms: number): void {
  if (ms <= longestSettle) return;
  longestSettle = ms;
  observe(SETTLED, `${Math.ceil(ms / 100) * 100} ms`);
}

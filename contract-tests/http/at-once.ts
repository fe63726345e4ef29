/**
 * Requests that do not depend on each other's answers are sent a few at a time: a server far away
 * answers each after a round trip, and waiting for them one by one is most of a run's time there.
 * The bound keeps the kit polite to a server that limits bursts (its 429s are sent again, as
 * every transient answer).
 */
const AT_ONCE = 6;

/**
 * Once the server answered this process a 429 or a transient answer, it gets one request at a
 * time from here on: a burst sent again at once meets the same limit (or the same failing hop).
 */
let oneAtATime = false;

export function slowDown(): void {
  oneAtATime = true;
}

/**
 * `task` of each item, at most `limit` in flight at once, the results in the items' order. When a
 * task fails, no further one is started; once those in flight have settled, the failure of the
 * earliest item is thrown, as a loop over the items would have.
 */
export async function mapAtOnce<T, R>(
  items: readonly T[],
  task: (item: T, index: number) => Promise<R>,
  limit = AT_ONCE,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  const failures: { index: number; error: unknown }[] = [];
  let next = 0;
  const lane = async (lane: number): Promise<void> => {
    while (next < items.length && failures.length === 0 && (lane === 0 || !oneAtATime)) {
      const index = next++;
      try {
        results[index] = await task(items[index]!, index);
      } catch (error) {
        failures.push({ index, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, (_, i) => lane(i)));
  if (failures.length > 0) throw failures.reduce((a, b) => (b.index < a.index ? b : a)).error;
  return results;
}

import v8 from 'node:v8';

/** What the heap must keep free beyond the world and the tokens' budget: requests in flight, and the collector's room. */
function heapHeadroom(limitBytes: number): number {
  return Math.max(64 * 2 ** 20, limitBytes / 4);
}

export interface HeapFacts {
  /** V8's heap limit (`--max-old-space-size` and the young generation). */
  limit: number;
  /** The heap in use once the world is built. */
  used: number;
}

export function heapFacts(): HeapFacts {
  const stats = v8.getHeapStatistics();
  return { limit: stats.heap_size_limit, used: stats.used_heap_size };
}

const mb = (bytes: number) => Math.floor(bytes / 2 ** 20);

/**
 * The heap a start measures differs by a few MB from one start to the next (with when the
 * collector last ran): the most the refusal advises stays this far below what is left, so that a
 * start that follows the advice is not refused in turn.
 */
const ADVICE_SLACK = 8 * 2 ** 20;

/**
 * Why the budget of all tokens (`--max-total-mb`) cannot be held by this process, or undefined
 * when it can: the budget, the heap already in use (the seeded world) and the headroom must fit
 * in V8's heap limit, or the process would die of "heap out of memory" under traffic instead of
 * shedding tokens. One world's bound (`--max-world-mb`) must fit in the budget too.
 */
export function budgetProblem(
  options: { maxTotalBytes: number; maxWorldBytes: number },
  heap: HeapFacts,
): string | undefined {
  if (options.maxWorldBytes > options.maxTotalBytes)
    return `--max-world-mb ${mb(options.maxWorldBytes)} is more than --max-total-mb ${mb(options.maxTotalBytes)}: one token's world must fit in what all tokens may hold. Lower --max-world-mb or raise --max-total-mb.`;
  const headroom = heapHeadroom(heap.limit);
  const room = heap.limit - heap.used - headroom;
  if (options.maxTotalBytes <= room) return undefined;
  return (
    `--max-total-mb ${mb(options.maxTotalBytes)} does not fit in this process's heap: V8's heap limit is ${mb(heap.limit)} MB, ` +
    `the world takes ${mb(heap.used)} MB and ${mb(headroom)} MB stay free for requests in flight, which leaves ${Math.max(0, mb(room))} MB. ` +
    `Lower --max-total-mb to at most ${Math.max(0, mb(room - ADVICE_SLACK))}, or give Node a larger heap: NODE_OPTIONS=--max-old-space-size=<MB>, ` +
    `at least ${Math.ceil(Math.max((options.maxTotalBytes + heap.used) / 0.75, options.maxTotalBytes + heap.used + 64 * 2 ** 20) / 2 ** 20)}.`
  );
}

/** The banner's line about memory. */
export function budgetLine(options: { maxTotalBytes: number }, heap: HeapFacts): string {
  return `tokens may hold ${mb(options.maxTotalBytes)} MB together (--max-total-mb; least recently used shed beyond it); the heap is at ${mb(heap.used)} MB of V8's ${mb(heap.limit)} MB limit`;
}

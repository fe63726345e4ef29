import type { RecordLine } from './records';

/**
 * The share of a run's requests that may be answered transiently (502, 503, 504, resets,
 * timeouts; common/transient.ts) before the run stops trusting what it saw: 10%. Below it, each
 * transient answer was sent again and only the real answer judged, and the run says how many
 * there were. Above it, the server (or what stands in front of it) is too unsteady for verdicts
 * to mean much: the run exits 2, naming the first of them, and judges no rule failed.
 */
const TRANSIENT_SHARE = 0.1;

/** How many examples a report names. */
const EXAMPLES = 5;

export interface TransientSummary {
  count: number;
  /** The first few, one line each: method, URL, status or error. */
  examples: string[];
}

/** The run's transient answers, from its records, and the problem they make past the share. */
export function transientsOf(
  records: RecordLine[],
  requests: number,
): { transient: TransientSummary; problem?: string } {
  const lines = records.flatMap((r) => (r.kind === 'transient' ? [r.what] : []));
  const transient = { count: lines.length, examples: lines.slice(0, EXAMPLES) };
  if (lines.length === 0 || lines.length <= TRANSIENT_SHARE * requests) return { transient };
  return {
    transient,
    problem: `the server answered ${lines.length} of ${requests} requests transiently (502/503/504, resets, timeouts): more than ${TRANSIENT_SHARE * 100}%, so no rule is judged on them: ${transient.examples.join('; ')}${lines.length > EXAMPLES ? '; …' : ''}`,
  };
}

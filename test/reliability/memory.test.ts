import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Counted bytes bound real bytes. Each scenario runs in a process of its own with a collector to
 * call (memory-probe.ts): the heap after a full collection, before and after, against what the
 * mock's budget counted for the same tokens. The budget is only worth its number if the count is
 * never below what is held; the control shows that the measure sees a count that is (excerpts
 * cut with slice() keep their whole parent alive, as the journal's once did).
 */
const PROBE = path.join(__dirname, 'memory-probe.ts');

interface Measured {
  scenario: string;
  counted: number;
  held: number;
  note: string;
}

function measure(scenario: string): Measured {
  const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', PROBE, scenario], {
    cwd: path.join(__dirname, '..', '..'),
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(output.trim().split('\n').at(-1)!) as Measured;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

describe('What the budget counts for tokens is never below what they hold', () => {
  it.each([
    ['journal', 'journals full of excerpts of pages of 100 messages'],
    ['worlds', 'worlds that wrote every kind of record, texts in every script, and read them all'],
    ['sessions', 'thousands of tokens that made one request'],
    ['fixtures', 'worlds replaced by fixtures'],
    ['deep', 'writes scattered over a world of 100,000 messages'],
  ])('%s: %s', (scenario) => {
    const { counted, held, note } = measure(scenario);
    // Printed so that a run shows the margin, not only that it held.
    console.log(`${scenario} (${note}): counted ${mb(counted)}, held ${mb(held)}`);
    expect(held).toBeGreaterThan(0);
    expect(counted).toBeGreaterThanOrEqual(held);
  });

  it('the measure sees a count below what is held: excerpts sliced from long texts keep them alive', () => {
    const { counted, held } = measure('sliced');
    expect(held).toBeGreaterThan(5 * counted);
  });
});

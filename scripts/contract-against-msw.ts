/**
 * Runs the contract kit, in both rule sets, against the mock inside Mock Service Worker in this
 * very process: MSW's `setupServer` intercepts the kit's requests to a base URL that no server
 * listens on, and the kit runs its rules in band (one process), where the interception holds.
 * `npm test` runs it in its contract part, beside the kit against the mock process.
 */
import { setupServer } from 'msw/node';
import { parseArgs } from 'node:util';
import { main as kit } from '../contract-tests/cli';
import { createHandlers } from '../src/msw';

const BASE_URL = 'http://messaging-api.msw.test';

const { values } = parseArgs({
  options: { 'rule-set': { type: 'string', multiple: true }, quiet: { type: 'boolean', default: false } },
});
const ruleSets = values['rule-set']?.length ? values['rule-set'] : ['documented', 'mock'];

async function main(): Promise<number> {
  const handlers = createHandlers({ baseUrl: BASE_URL });
  const server = setupServer(...handlers);
  // Nothing else may slip out to the network: a request MSW does not answer is an error.
  server.listen({ onUnhandledRequest: 'error' });
  let worst = 0;
  const totals = { passed: 0, failed: 0, notRun: 0 };
  try {
    for (const ruleSet of ruleSets) {
      const lines: string[] = [];
      const write = process.stdout.write.bind(process.stdout);
      // The kit prints its report; keep it, and show it whole only when asked or when it failed.
      process.stdout.write = ((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      }) as typeof process.stdout.write;
      let code: number;
      try {
        code = await kit([
          process.execPath,
          'messaging-contract',
          '--base-url',
          BASE_URL,
          '--token',
          `msw-${ruleSet}`,
          '--rule-set',
          ruleSet,
          '--workers',
          '1',
        ]);
      } finally {
        process.stdout.write = write;
      }
      const output = lines.join('');
      const last = output.trim().split('\n').at(-1) ?? '';
      const counts = /(\d+) passed, (\d+) failed, (\d+) not run/.exec(last);
      if (counts)
        for (const [i, key] of (['passed', 'failed', 'notRun'] as const).entries())
          totals[key] += Number(counts[i + 1]);
      if (code !== 0 || !values.quiet) process.stdout.write(output.trimEnd() + '\n');
      else
        process.stdout.write(`contract kit, ${ruleSet} rule set, against the MSW adapter in Node: ${last}\n`);
      worst = Math.max(worst, code);
    }
  } finally {
    server.close();
    handlers.stop();
  }
  console.log(`contract (MSW): ${totals.passed} passed, ${totals.failed} failed, ${totals.notRun} skipped`);
  return worst;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.stack ?? error.message);
    process.exit(2);
  },
);

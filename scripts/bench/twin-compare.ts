/**
 * How far each staging server's twin is from its server: `messaging-contract twin --from` records
 * the server's account and observes its conventions, the mock serves both as the twin, and
 * `messaging-contract twin compare` runs a client's session on the two and counts the steps whose
 * answers differ in form (docs/twin.md). The servers: every staging server of the kit's tests
 * (test/contract-kit/staging.ts) but the rate-limited one (its waits would take minutes) and the
 * one whose lists settle late (a session does not wait for them).
 *
 * `npm run bench -- --only twin`, or alone: `npx tsx scripts/bench/twin-compare.ts [--name <text>]
 * [--show] [--without <choice>]…` (`--show`: each difference, not only the counts; `--without`: a
 * choice taken out of every twin's profile, as `inputRules` or `order.messages`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listen } from '../../src/express/server';
import { loadFixtureFile } from '../../src/fixture-file';
import { runBin } from '../../test/contract-kit/harness';
import { STAGING_HARD_VARIANTS, STAGING_VARIANTS, startStaging } from '../../test/contract-kit/staging';

export interface TwinDistance {
  server: string;
  /** The last line of `twin compare`, or why there was none. */
  summary: string;
  code: number;
  output: string;
}

/**
 * `without`: choices taken out of each twin's profile before it is served (`inputRules`,
 * `order.messages`), to show what mirroring each one brings.
 */
export async function twinDistances(
  name: string | undefined,
  say: (line: string) => void,
  show = false,
  without: string[] = [],
): Promise<TwinDistance[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twin-compare-'));
  const results: TwinDistance[] = [];
  try {
    for (const [i, variant] of [...STAGING_VARIANTS, ...STAGING_HARD_VARIANTS].entries()) {
      if (name !== undefined && !variant.name.includes(name)) continue;
      if (variant.options.rateLimit || variant.options.settleMs) {
        say(`- ${variant.name}: not compared (a rate limit, or lists that settle late)`);
        continue;
      }
      const server = await startStaging(variant.options);
      const prefix = variant.options.prefix ?? '';
      const out = path.join(dir, `twin-${i}`);
      try {
        const made = await runBin([
          'twin',
          '--from',
          server.url + prefix,
          '--token',
          `twin-${i}`,
          '--out-dir',
          out,
        ]);
        const profile = path.join(out, 'profile.json');
        if (!fs.existsSync(profile)) {
          const result = {
            server: variant.name,
            summary: `no twin (exit ${made.code})`,
            code: 2,
            output: made.output,
          };
          results.push(result);
          say(`- ${variant.name}: ${result.summary}`);
          continue;
        }
        const conventions = JSON.parse(fs.readFileSync(profile, 'utf8')) as Record<string, unknown>;
        for (const choice of without) {
          const [head, ...rest] = choice.split('.');
          if (rest.length === 0) delete conventions[head!];
          else delete (conventions[head!] as Record<string, unknown> | undefined)?.[rest.join('.')];
        }
        const twin = await listen({
          port: 0,
          conventions,
          data: loadFixtureFile(path.join(out, 'fixture.json')),
        });
        try {
          const run = await runBin([
            'twin',
            'compare',
            '--server',
            server.url + prefix,
            '--twin',
            twin.url + prefix,
            '--token',
            `compare-${i}`,
          ]);
          const summary = run.output.trim().split('\n').at(-1) ?? '';
          results.push({ server: variant.name, summary, code: run.code, output: run.output });
          say(`- ${variant.name}: exit ${run.code}; ${summary}`);
          if (show) for (const line of run.output.trim().split('\n').slice(1, -1)) say(`    ${line}`);
        } finally {
          await twin.close();
        }
      } finally {
        await server.close();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      show: { type: 'boolean', default: false },
      without: { type: 'string', multiple: true, default: [] },
    },
  });
  void twinDistances(values.name, (line) => console.log(line), values.show, values.without).then(
    (results) => (process.exitCode = results.some((r) => r.code === 2) ? 2 : 0),
  );
}

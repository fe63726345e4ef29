/**
 * `npm run soak`: long runs that measure memory and failures under traffic, each a section:
 *
 *   mock   the mock with its default options under a 1 GB machine's heap limit, ≥ 200,000
 *          requests from 5,000 tokens (pages of 100 and writes): no 5xx, alive, RSS within the
 *          budget plus its idle baseline
 *   proxy  the contract proxy with its default options in front of the mock, under the same
 *          traffic: no 5xx, no rule broken, RSS flat after the first minute
 *   recorder  messaging-fixtures --from on an account of 1,000,000 messages, plain, anonymized
 *          and anonymized with every text distinct: each file as the mock serves it, each
 *          recording's peak RSS within --max-rss-mb
 *
 *   npm run soak [-- --only mock,proxy,recorder] [--requests 200000] [--tokens 5000]
 *                [--connections 16] [--interval 10] [--heap-mb 256] [--messages 1000000]
 *                [--contacts 10000] [--max-rss-mb 1024] [--skip-distinct] [--out soak.md]
 *
 * It measures; nothing here is a test's timed assertion. The exit code is 1 when a section's
 * verdict fails. Needs `npm run build` (npm run soak builds first). Loopback traffic only.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { soakDurable, soakDurableNginx } from './soak/durable';
import { soakMock, type SectionResult, type SoakOptions } from './soak/mock';
import { soakProxy } from './soak/proxy';
import { soakRecorder } from './soak/recorder';

const SECTIONS: Record<string, (options: SoakOptions) => Promise<SectionResult>> = {
  mock: soakMock,
  proxy: soakProxy,
  recorder: soakRecorder,
  durable: soakDurable,
  'durable-nginx': soakDurableNginx,
};

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'mock,proxy,recorder,durable' },
    requests: { type: 'string', default: '200000' },
    tokens: { type: 'string', default: '5000' },
    connections: { type: 'string', default: '16' },
    interval: { type: 'string', default: '10' },
    'heap-mb': { type: 'string', default: '256' },
    messages: { type: 'string', default: '1000000' },
    contacts: { type: 'string', default: '10000' },
    'max-rss-mb': { type: 'string', default: '1024' },
    'skip-distinct': { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

function whole(name: Exclude<keyof typeof values, 'only' | 'out' | 'skip-distinct'>): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a whole number of 1 or more, got ${values[name]}`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  const options: SoakOptions = {
    requests: whole('requests'),
    tokens: whole('tokens'),
    connections: whole('connections'),
    intervalSeconds: whole('interval'),
    heapMb: whole('heap-mb'),
    messages: whole('messages'),
    contacts: whole('contacts'),
    recorderMaxRssMb: whole('max-rss-mb'),
    distinctTexts: !values['skip-distinct'],
  };
  const names = values.only!.split(',').filter(Boolean);
  for (const name of names) {
    if (!(name in SECTIONS)) {
      console.error(`--only ${name}: no such section (${Object.keys(SECTIONS).join(', ')})`);
      process.exit(2);
    }
  }
  const out = [
    `# Soak, ${new Date().toISOString()}, ${os.cpus()[0]?.model} × ${os.cpus().length}, Node ${process.version}`,
    '',
  ];
  let ok = true;
  for (const name of names) {
    const result = await SECTIONS[name]!(options);
    ok &&= result.ok;
    out.push(`## ${name}`, '', ...result.lines, '');
  }
  if (values.out) writeFileSync(values.out, out.join('\n'));
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, NGINX, startNginx, type Nginx } from '../nginx';
import { Ledger } from './ledger';
import type { SectionResult, SoakOptions } from './mock';
import { MOCK_BIN, startListening, type Started } from './process';
import { traffic, type Exchange } from './traffic';

/** The bounds the issue's soak asks for: most worlds leave memory for the data dir, and come back. */
const BOUNDS = ['--max-total-mb', '8', '--max-world-mb', '4'];

/**
 * Durable worlds under traffic: mocks with `--data-dir` and small memory bounds, many tokens
 * writing (the mock section's traffic: creates, edits, reactions, deletes, and reads of pages of
 * 100), one mock killed with SIGKILL once half of the requests were sent and started again on its
 * port and data dir, and then every record of the client's ledger (scripts/soak/ledger.ts) read
 * back: no acknowledged write may be lost or changed, and no acknowledged delete undone.
 * `durable`: one mock, whose clients wait while it restarts. `durable-nginx`: three, behind nginx
 * routing by Authorization (scripts/nginx.ts), whose clients of the killed mock get nginx's 502
 * while it is down and the others go on.
 */
export const soakDurable = (options: SoakOptions) => soak(options, 1);
export const soakDurableNginx = (options: SoakOptions) => soak(options, 3);

async function soak(options: SoakOptions, count: number): Promise<SectionResult> {
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  if (count > 1 && !NGINX) {
    say('- FAILED: nginx is not installed here (apt-get install nginx-light): this section did not run');
    return { ok: false, lines };
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-durable-'));
  let evicted = 0;
  const start = (port: number, i: number) =>
    startListening(
      [MOCK_BIN, '--port', String(port), '--quiet', '--data-dir', path.join(root, `mock-${i}`), ...BOUNDS],
      `mock ${i}`,
      (line) => {
        if (/^world of token .* left memory/.test(line)) evicted++;
      },
    );
  const ports = await Promise.all(Array.from({ length: count }, freePort));
  const mocks: Started[] = await Promise.all(ports.map(start));
  let nginx: Nginx | undefined;
  try {
    nginx = count > 1 ? await startNginx(root, ports) : undefined;
    const url = new URL(nginx?.url ?? mocks[0]!.url);
    const victim = count > 1 ? 1 : 0;
    say(
      `${count === 1 ? 'The mock' : `${count} mocks behind nginx (hash $http_authorization consistent, proxy_next_upstream off), each`} with --data-dir (--fsync batch) ${BOUNDS.join(' ')}; ` +
        `${options.requests.toLocaleString('en')} requests from ${options.tokens.toLocaleString('en')} tokens over ${options.connections} connections; ` +
        `SIGKILL of ${count === 1 ? 'the mock' : `mock ${victim}`} once half were sent, then started again on its port and data dir.`,
    );
    say('');

    const ledger = new Ledger();
    let killedAt = Infinity;
    let upAt = Infinity;
    const excused: number[] = [];
    const held: string[] = [];
    let ackedBefore = 0;
    let ackedAfter = 0;
    const observe = (exchange: Exchange) => {
      ledger.observe(exchange);
      const failed = exchange.status === undefined || exchange.status >= 500;
      if (!failed) {
        if (exchange.method === 'GET' || exchange.status! >= 300) return;
        if (exchange.endedAt < killedAt) ackedBefore++;
        else if (exchange.sentAt > upAt) ackedAfter++;
        return;
      }
      // What the mock did not say while it was down is not held against it.
      if (exchange.endedAt >= killedAt && exchange.sentAt <= upAt) excused.push(exchange.status ?? 0);
      else held.push(`${exchange.method} ${exchange.path} → ${exchange.status ?? 'no answer'}`);
    };
    // Once half of the requests were sent, the mock is killed just after a write went out to it,
    // so that writes are in its hands when it dies. One mock: its clients wait while it restarts,
    // as an app retrying would; behind nginx the other mocks' tokens go on.
    let restarted: Promise<{ sentAtKill: number; listening: number; firstAnswer: number }> | undefined;
    let up: Promise<unknown> = Promise.resolve();
    const ready = (method: string) => {
      if (!restarted && method !== 'GET' && load.sent() >= options.requests / 2) {
        restarted = new Promise((resolve) => setImmediate(resolve)).then(() => restart(load.sent()));
        if (count === 1) up = restarted;
      }
      return up.then(() => undefined);
    };
    const restart = async (sentAtKill: number) => {
      killedAt = Date.now();
      await mocks[victim]!.stop('SIGKILL');
      const restarting = Date.now();
      mocks[victim] = await start(ports[victim]!, victim);
      const listening = Date.now() - restarting;
      const first = await fetch(new URL('/v1/contacts?limit=1', mocks[victim]!.url), {
        headers: { Authorization: 'Bearer durable-0' },
      });
      await first.arrayBuffer();
      upAt = Date.now();
      return { sentAtKill, listening, firstAnswer: upAt - restarting };
    };
    const load = traffic({
      url,
      prefix: 'durable',
      requests: options.requests,
      tokens: options.tokens,
      connections: options.connections,
      observe,
      ready,
    });
    const started = Date.now();
    const totals = await load.done;
    if (!restarted) throw new Error('the traffic ended before half of it was sent');
    const { sentAtKill, listening, firstAnswer } = await restarted;
    const elapsed = (Date.now() - started) / 1000;
    const counts = await ledger.check(url);
    const deaths = mocks.map((mock) => mock.died()).filter((death) => death !== undefined);

    say(
      `${totals.answered.toLocaleString('en')} answers in ${elapsed.toFixed(0)} s; statuses ${JSON.stringify(totals.byStatus)}; ` +
        `killed after ${sentAtKill.toLocaleString('en')} requests; started again: listening after ${listening} ms, its first answer (a token's world read back from disk) after ${firstAnswer} ms; ` +
        `${evicted.toLocaleString('en')} times a world left memory for its data dir (each logged); the ledger below reads every token back, from memory or from there.`,
    );
    say('');
    say('| ledger | count |');
    say('|---|---:|');
    say(`| writes acknowledged | ${counts.acknowledged.toLocaleString('en')} |`);
    say(
      `| … of them before the kill / after the restart | ${ackedBefore.toLocaleString('en')} / ${ackedAfter.toLocaleString('en')} |`,
    );
    say(
      `| writes without the mock's answer (killed under them, or nginx's 502 while it was down) | ${counts.unanswered} |`,
    );
    say(`| records read back | ${counts.checked.toLocaleString('en')} |`);
    say(`| records not judged (their last write got no answer) | ${counts.uncertain} |`);
    say(`| lost | ${counts.lost.length} |`);
    say(`| changed | ${counts.changed.length} |`);
    say(`| deleted, and served again | ${counts.back.length} |`);
    say('');
    for (const example of [...counts.lost, ...counts.changed, ...counts.back].slice(0, 5))
      say(`  ${example}`);
    const verdicts = [
      [
        counts.lost.length + counts.changed.length + counts.back.length === 0,
        `0 acknowledged writes lost or changed: ${counts.lost.length} lost, ${counts.changed.length} changed, ${counts.back.length} deletes undone, of ${counts.checked.toLocaleString('en')} records read back`,
      ],
      [
        ackedBefore > 0 && ackedAfter > 0 && sentAtKill < options.requests * 0.75,
        `killed mid-traffic: ${ackedBefore.toLocaleString('en')} writes acknowledged before, ${ackedAfter.toLocaleString('en')} after`,
      ],
      [evicted > 0, `the memory bounds sent worlds to the data dir: ${evicted.toLocaleString('en')} times`],
      [
        held.length === 0,
        `no 5xx and no missing answer outside the kill: ${held.length}${held.length ? ` (${held.slice(0, 5).join('; ')})` : ''}; ${excused.length} while it was down, not held against it`,
      ],
      [deaths.length === 0, deaths.join('; ') || 'every mock alive at the end'],
    ] as const;
    for (const [ok, text] of verdicts) say(`- ${ok ? 'ok' : 'FAILED'}: ${text}`);
    return { ok: verdicts.every(([ok]) => ok), lines };
  } finally {
    await nginx?.stop();
    await Promise.all(mocks.map((mock) => mock.stop()));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

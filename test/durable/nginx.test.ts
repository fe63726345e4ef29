import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, NGINX, startNginx } from '../../scripts/nginx';
import { startMock } from '../../scripts/mock-process';
import { exited, lost, write, type Acknowledged } from './ledger';

/**
 * Three mocks, each with its own data dir, behind nginx from the Debian package, routing by the
 * Authorization header (`hash $http_authorization consistent`, no failover: docs/deploy.md): 400
 * tokens write through it, one mock is killed with SIGKILL in the middle and started again on its
 * port and dir, and every write nginx answered 201 is read back through nginx. Where nginx is not
 * installed the test says so and does not run; in CI (`CI=true`, where .ci/run installs it) a
 * missing nginx fails.
 */
const TOKENS = 400;
const WRITES = 3;

if (!NGINX) {
  if (process.env.CI === 'true')
    throw new Error('nginx is missing: .ci/run installs it (apt-get install nginx-light).');
  console.warn(
    'test/durable/nginx.test.ts did not run: nginx is not installed here (apt-get install nginx-light).',
  );
}

const mockOn = async (port: number, dir: string) =>
  (await startMock({ port, args: ['--data-dir', dir, '--fsync', 'always'] })).child;

(NGINX ? describe : describe.skip)('three mocks behind nginx, routed by Authorization', () => {
  it('keeps every acknowledged write of 400 tokens through a SIGKILL and restart of one mock', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nginx-mocks-'));
    const ports = [await freePort(), await freePort(), await freePort()];
    const mocks = await Promise.all(ports.map((port, i) => mockOn(port, path.join(root, `mock-${i}`))));
    const nginx = await startNginx(root, ports);
    const url = nginx.url;
    try {
      const ledger: Acknowledged[] = [];
      let refused = 0;
      const send = async (token: string, n: number) => {
        if (!(await write(url, token, `u${n}_${token}`, ledger))) refused++;
      };
      const tokens = Array.from({ length: TOKENS }, (_, i) => `team-token-${i}`);
      for (let n = 0; n < WRITES; n++) {
        // The middle round: one mock killed while its tokens write, then started again.
        if (n === 1) {
          const half = Math.floor(tokens.length / 2);
          await Promise.all(tokens.slice(0, half).map((token) => send(token, n)));
          mocks[1]!.kill('SIGKILL');
          await exited(mocks[1]!);
          await Promise.all(tokens.slice(half).map((token) => send(token, n)));
          mocks[1] = await mockOn(ports[1]!, path.join(root, 'mock-1'));
        } else await Promise.all(tokens.map((token) => send(token, n)));
      }
      // The killed mock's tokens were refused while it was down (no failover), and only then.
      expect(refused).toBeGreaterThan(0);
      expect(ledger.length + refused).toBe(TOKENS * WRITES);
      expect({ acknowledged: ledger.length > TOKENS * 2, lost: await lost(url, ledger) }).toEqual({
        acknowledged: true,
        lost: [],
      });
    } finally {
      await nginx.stop();
      for (const mock of mocks) {
        mock.kill('SIGTERM');
        await exited(mock);
      }
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exited, lost, startMock, write, type Acknowledged } from './ledger';

/**
 * Three mocks, each with its own data dir, behind nginx from the Debian package, routing by the
 * Authorization header (`hash $http_authorization consistent`, no failover: docs/deploy.md): 400
 * tokens write through it, one mock is killed with SIGKILL in the middle and started again on its
 * port and dir, and every write nginx answered 201 is read back through nginx. Where nginx is not
 * installed the test says so and does not run; in CI (`CI=true`, where .ci/run installs it) a
 * missing nginx fails.
 */
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => fs.existsSync(file));
const TOKENS = 400;
const WRITES = 3;

if (!NGINX) {
  if (process.env.CI === 'true')
    throw new Error('nginx is missing: .ci/run installs it (apt-get install nginx-light).');
  console.warn(
    'test/durable/nginx.test.ts did not run: nginx is not installed here (apt-get install nginx-light).',
  );
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const mockOn = async (port: number, dir: string) =>
  (await startMock(port, ['--data-dir', dir, '--fsync', 'always'])).child;

(NGINX ? describe : describe.skip)('three mocks behind nginx, routed by Authorization', () => {
  it('keeps every acknowledged write of 400 tokens through a SIGKILL and restart of one mock', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nginx-mocks-'));
    const ports = [await freePort(), await freePort(), await freePort()];
    const mocks = await Promise.all(ports.map((port, i) => mockOn(port, path.join(root, `mock-${i}`))));
    const front = await freePort();
    const conf = path.join(root, 'nginx.conf');
    fs.writeFileSync(
      conf,
      `worker_processes 1;
daemon off;
pid ${root}/nginx.pid;
error_log ${root}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${root}/body;
  proxy_temp_path ${root}/proxy;
  fastcgi_temp_path ${root}/fastcgi;
  uwsgi_temp_path ${root}/uwsgi;
  scgi_temp_path ${root}/scgi;
  upstream mocks {
    hash $http_authorization consistent;
${ports.map((port) => `    server 127.0.0.1:${port} max_fails=0;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${front};
    location / {
      proxy_pass http://mocks;
      proxy_next_upstream off;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
    );
    const checked = spawnSync(NGINX!, ['-t', '-c', conf, '-p', root], { encoding: 'utf8' });
    expect(checked.status).toBe(0);
    const nginx = spawn(NGINX!, ['-c', conf, '-p', root]);
    const url = `http://127.0.0.1:${front}`;
    try {
      for (let tries = 0; ; tries++) {
        try {
          await fetch(`${url}/openapi.json`);
          break;
        } catch (error) {
          if (tries > 100) throw error;
          await new Promise((done) => setTimeout(done, 50));
        }
      }
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
      nginx.kill('SIGTERM');
      await exited(nginx);
      for (const mock of mocks) {
        mock.kill('SIGTERM');
        await exited(mock);
      }
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

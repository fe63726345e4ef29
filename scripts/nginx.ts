/**
 * nginx from the Debian package in front of several mocks, routing by the Authorization header
 * as docs/deploy.md configures it (`hash $http_authorization consistent`, no failover to another
 * mock): what test/durable/nginx.test.ts and `npm run soak -- --only durable-nginx` run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The nginx binary, where the Debian package puts it; undefined where it is not installed. */
export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => fs.existsSync(file));

/** A port nothing listens on now. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** The configuration, all of its files under `root`, listening on `front` before the mocks on `ports`. */
export function nginxConfig(root: string, front: number, ports: readonly number[]): string {
  return `worker_processes 1;
daemon off;
pid ${root}/nginx.pid;
error_log ${root}/error.log;
events { worker_connections 4096; }
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
`;
}

export interface Nginx {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Writes the configuration into `root`, checks it (`nginx -t`), starts nginx and waits until it answers. */
export async function startNginx(root: string, ports: readonly number[]): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install nginx-light)');
  const front = await freePort();
  const conf = path.join(root, 'nginx.conf');
  fs.writeFileSync(conf, nginxConfig(root, front, ports));
  const checked = spawnSync(NGINX, ['-t', '-c', conf, '-p', root], { encoding: 'utf8' });
  if (checked.status !== 0) throw new Error(`nginx -t refused the configuration: ${checked.stderr}`);
  const child = spawn(NGINX, ['-c', conf, '-p', root], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${front}`;
  for (let tries = 0; ; tries++) {
    try {
      await fetch(`${url}/openapi.json`);
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

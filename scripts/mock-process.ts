/**
 * The mock as a process, as `npm start` runs it: the built `dist/cli/bin.js` on an ephemeral port
 * (or the one given), quiet, its errors on this process's stderr. Resolves once it prints its URL
 * (within 20 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

export interface MockProcess {
  url: string;
  child: ChildProcess;
  /** Stops it (SIGTERM) and resolves once it has exited. */
  close(): Promise<void>;
}

export interface MockProcessOptions {
  /** `--latency MS`: the mock waits that long before every answer (a server that far away). */
  latency?: string;
  /** The port to listen on (0, the default: any free one). */
  port?: number;
  /** Any other options of the CLI (`--data-dir …`). */
  args?: string[];
}

export function startMock(options: MockProcessOptions = {}): Promise<MockProcess> {
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'dist', 'cli', 'bin.js'),
      '--port',
      String(options.port ?? 0),
      '--quiet',
      ...(options.latency ? ['--latency', options.latency] : []),
      ...(options.args ?? []),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the mock did not start within 20 s: ${seen}`)), 20_000);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          close: () =>
            new Promise<void>((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`the mock exited (${code}) before listening: ${seen}`)));
  });
}

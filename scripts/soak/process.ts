import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The mock's built CLI, as `npm start` runs it. */
export const MOCK_BIN = path.join(__dirname, '..', '..', 'dist', 'cli', 'bin.js');

/** A process the soak started, that prints `listening on <url>` once it is ready. */
export interface Started {
  url: URL;
  pid: number;
  /** The lines it printed, the last 50,000 at least (each is also given to onLine as it comes). */
  lines: string[];
  /** Why it ended before it was asked to, if it did. */
  died(): string | undefined;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  child: ChildProcess;
}

/** Starts `node <args>`, waits for its `listening on http://…` line, and keeps reading its output. */
export async function startListening(
  args: string[],
  what: string,
  onLine?: (line: string) => void,
): Promise<Started> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stopping = false;
  let died: string | undefined;
  let ready = false;
  child.once('exit', (code, signal) => {
    if (!stopping) died = `${what} exited during the soak (code ${code}, signal ${signal})`;
  });
  const url = await new Promise<URL>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`${what} exited with ${code} before listening: ${lines.join('\n')}`)),
    );
    let pending = '';
    // Keep reading both streams for the whole run: a full pipe would stall the process.
    const read = (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts) {
        onLine?.(line);
        lines.push(line);
        if (lines.length > 100_000) lines.splice(0, 50_000);
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (!ready && match) {
          ready = true;
          resolve(new URL(match[1]!));
        }
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to load a non-loopback address: ${url}`);
  return {
    url,
    pid: child.pid!,
    lines,
    child,
    died: () => died,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null)
          return resolve({ code: child.exitCode, signal: child.signalCode });
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.kill(signal);
      }),
  };
}

/** Resident set size of a process in MB, from /proc (Linux); NaN once it is gone. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/**
 * What the durability tests share: the CLI as a user runs it (the built entry), and a client-side
 * ledger of the writes the mock acknowledged, read back after a crash.
 */
const BIN = path.join(__dirname, '..', '..', 'dist', 'cli', 'bin.js');

/** The mock on `port` (0: any) with a data dir, once it listens: its process and URL. */
export function startMock(port: number, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, '--port', String(port), '--quiet', ...args]);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found && /Try:.*\n/.test(output)) resolve({ child, url: found[1]! });
    });
    child.on('exit', (code) => reject(new Error(`the mock exited with ${code}: ${output}`)));
  });
}

export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve()),
  );

export interface Acknowledged {
  token: string;
  id: string;
  username: string;
}

/** Creates a contact; a 201 goes into the ledger. Whether the mock acknowledged it. */
export async function write(
  url: string,
  token: string,
  username: string,
  ledger: Acknowledged[],
): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v1/contacts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username, phone_number: '+15550100' }),
    });
    if (res.status !== 201) return false;
    ledger.push({ token, id: ((await res.json()) as { id: string }).id, username });
    return true;
  } catch {
    return false; // The connection went with the process: not acknowledged.
  }
}

/** The acknowledged writes that the mock does not show as they were written. */
export async function lost(url: string, ledger: Acknowledged[]): Promise<string[]> {
  const missing: string[] = [];
  for (const { token, id, username } of ledger) {
    const res = await fetch(`${url}/v1/contacts/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    const body = res.status === 200 ? ((await res.json()) as { username: string }) : undefined;
    if (body?.username !== username) missing.push(`${token} ${id} (${res.status})`);
  }
  return missing;
}

import type { ChildProcess } from 'node:child_process';

/**
 * What the durability tests share: a client-side ledger of the writes the mock acknowledged, read
 * back after a crash (the mock itself is the built CLI, scripts/mock-process.ts).
 */
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

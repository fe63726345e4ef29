import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMock } from '../../scripts/mock-process';
import { exited, lost, write, type Acknowledged } from './ledger';

/**
 * The CLI with `--data-dir`, killed with SIGKILL while clients write: every write it acknowledged
 * (a 201 the client saw) is there after a restart on the same dir, unchanged; a client-side
 * ledger holds what each acknowledged.
 */
describe.each(['always', 'batch'])('--data-dir with --fsync %s, killed mid-traffic', (fsync) => {
  it('loses no acknowledged write', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-'));
    const args = ['--data-dir', dir, '--fsync', fsync];
    const first = await startMock({ args });
    const ledger: Acknowledged[] = [];
    let killed = false;
    const client = async (token: string) => {
      for (let n = 0; !killed; n++)
        if (!(await write(first.url, token, `${token}_${n}`, ledger)) && killed) return;
    };
    const clients = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map(client);
    // Killed once a few dozen writes were acknowledged, while the clients keep writing.
    while (ledger.length < 60) await new Promise((done) => setTimeout(done, 5));
    first.child.kill('SIGKILL');
    killed = true;
    await exited(first.child);
    await Promise.all(clients);

    const second = await startMock({ args });
    try {
      expect({ acknowledged: ledger.length >= 60, lost: await lost(second.url, ledger) }).toEqual({
        acknowledged: true,
        lost: [],
      });
    } finally {
      second.child.kill('SIGTERM');
      await exited(second.child);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

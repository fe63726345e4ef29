/** The kit's wall time against the local mock process: each rule set three times, medians printed. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const result = spawnSync(
  process.execPath,
  [
    require.resolve('tsx/cli'),
    path.join(__dirname, 'contract-against-mock.ts'),
    '--runs',
    process.argv[2] ?? '3',
    '--quiet',
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);

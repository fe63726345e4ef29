/**
 * Writes src/default-world.json, the default world (seed 1, 25 contacts, 300 messages) as data, so
 * that a browser serving it needs no faker: `npm run default-world` after a change to src/seed.ts
 * (test/seed.test.ts fails until the file equals what the generator makes).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateWorld } from '../src/seed';
import { SEED_DEFAULTS } from '../src/seed-options';

const file = path.join(__dirname, '..', 'src', 'default-world.json');
writeFileSync(file, `${JSON.stringify(generateWorld({ ...SEED_DEFAULTS }), null, 1)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file)}`);

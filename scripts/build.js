#!/usr/bin/env node
/**
 * `npm run build`: dist/, the package's contents, safe to run while another build, a test run or
 * the mock itself uses dist/. `npm start`, `npm test`, `npm pack` and `prepare` all build, often at
 * once in two terminals, so:
 * - nothing is built when dist/ was built from the same sources (a hash of every input, kept in
 *   dist/.build-stamp); `--force` builds anyway;
 * - a build writes into a folder of its own beside dist/, then moves each file into dist/ with
 *   rename(2), which replaces a file in one step: a process that starts or loads a module meanwhile
 *   finds the old file or the new one, never none. Files the new build no longer has go last.
 */
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const STAMP = '.build-stamp';
const INPUTS = [
  'src',
  'contract-tests',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.kit.json',
  'package.json',
  'package-lock.json',
  'scripts/build.js',
];

/** Every file under `dir`, as paths relative to it, sorted. */
function filesUnder(dir) {
  const found = [];
  const walk = (at) => {
    for (const entry of fs.readdirSync(path.join(dir, at), { withFileTypes: true })) {
      const rel = at ? `${at}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else found.push(rel);
    }
  };
  if (fs.existsSync(dir)) walk('');
  return found.sort();
}

/** A hash of every input's path and bytes. */
function stampOfInputs() {
  const hash = crypto.createHash('sha256');
  for (const input of INPUTS) {
    const full = path.join(root, input);
    const files = fs.statSync(full).isDirectory() ? filesUnder(full).map((f) => `${input}/${f}`) : [input];
    for (const file of files) {
      hash.update(`${file}\0`);
      hash.update(fs.readFileSync(path.join(root, file)));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return fs.readFileSync(path.join(dist, STAMP), 'utf8');
  } catch {
    return undefined;
  }
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`${[command, ...args].map((a) => path.relative(root, a) || a).join(' ')} failed`);
  }
}

/** Moves every file of `from` into dist/, each in one rename, then drops what the build no longer has. */
function swapIn(from) {
  const fresh = filesUnder(from);
  // The stamp last: dist/ says it is up to date only once every file is in.
  const ordered = [...fresh.filter((f) => f !== STAMP), STAMP];
  for (const file of ordered) {
    const target = path.join(dist, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(path.join(from, file), target);
  }
  const kept = new Set(fresh);
  for (const file of filesUnder(dist)) if (!kept.has(file)) fs.rmSync(path.join(dist, file), { force: true });
}

function build() {
  const stamp = stampOfInputs();
  if (!process.argv.includes('--force') && readStamp() === stamp) {
    console.log('dist/ is up to date (built from these sources): nothing to build');
    return;
  }
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const out = fs.mkdtempSync(path.join(root, 'dist.tmp-'));
  try {
    run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out]);
    run(process.execPath, [tsc, '-p', 'tsconfig.kit.json', '--outDir', path.join(out, 'contract-tests')]);
    fs.writeFileSync(path.join(out, STAMP), stamp);
    swapIn(out);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

module.exports = { INPUTS };

if (require.main === module) {
  try {
    build();
  } catch (error) {
    console.error(`build: ${error.message}`);
    process.exit(1);
  }
}

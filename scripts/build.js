#!/usr/bin/env node
/**
 * `npm run build`: dist/, the package's contents, safe to run while another build, a test run or
 * the mock itself uses dist/. `npm start`, `npm test` and `npm pack` (prepack) all build, often at
 * once in two terminals, so:
 * - nothing is built when dist/ was built from the same sources (a hash of every input, kept in
 *   dist/.build-stamp); `--force` builds anyway;
 * - a build writes into a folder of its own beside dist/, then moves each file into dist/ with
 *   rename(2), which replaces a file in one step: a process that starts or loads a module meanwhile
 *   finds the old file or the new one, never none. Files the new build no longer has go last.
 *
 * What it builds: first src/store/copies.generated.ts from the field tables (npm run generate), then
 * tsc compiles src/ to CommonJS with its declarations (dist/), and the kit
 * (dist/contract-tests/) with common/ (dist/common/, which both packages hold); esbuild writes the ES modules (dist/esm/). The MSW adapter, which runs
 * in browsers, is bundled as ES modules with code splitting: the seeded world's generator (and
 * faker), the shipped default world, the simulator and the OpenAPI document are chunks of their
 * own, which a browser loads only when it needs them. The main entry is for Node only (the server
 * reads the dashboard's files from disk): its ES module re-exports the CommonJS build, so that one
 * copy of the server runs however it is loaded.
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
  'common',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.kit.json',
  'package.json',
  'package-lock.json',
  'scripts/build.js',
  'scripts/generate-copies.ts',
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

/** Entries of the package (package.json `exports`) with their sources and their CommonJS builds. */
const ENTRIES = {
  index: { source: 'src/index.ts', commonjs: 'index.js', bundled: false },
  msw: { source: 'src/msw/index.ts', commonjs: 'msw/index.js', bundled: true },
};

async function buildModules(out) {
  const esbuild = require('esbuild');
  const esm = path.join(out, 'esm');
  const bundled = Object.entries(ENTRIES).filter(([, entry]) => entry.bundled);
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(bundled.map(([name, entry]) => [name, entry.source])),
    outdir: esm,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    // The dependencies stay the user's to install and bundle, but sorted-btree: its CommonJS
    // default export is not one to Node's ES modules.
    external: ['msw', 'qs', '@faker-js/faker'],
    logLevel: 'warning',
  });
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const commonjs = `../${entry.commonjs}`;
    if (!entry.bundled) {
      const names = Object.keys(require(path.join(out, entry.commonjs))).filter((n) => n !== '__esModule');
      fs.writeFileSync(path.join(esm, `${name}.mjs`), `export { ${names.join(', ')} } from '${commonjs}';\n`);
    }
    fs.writeFileSync(path.join(esm, `${name}.d.mts`), `export * from '${commonjs}';\n`);
  }
}

async function build() {
  // The store's copies, written from the field tables (scripts/generate-copies.ts): a source of the build.
  run(process.execPath, [require.resolve('tsx/cli', { paths: [root] }), 'scripts/generate-copies.ts']);
  const stamp = stampOfInputs();
  if (!process.argv.includes('--force') && readStamp() === stamp) {
    console.log('dist/ is up to date (built from these sources): nothing to build');
    return;
  }
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const out = fs.mkdtempSync(path.join(root, 'dist.tmp-'));
  try {
    run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out]);
    run(process.execPath, [tsc, '-p', 'tsconfig.kit.json', '--outDir', out]);
    await buildModules(out);
    fs.writeFileSync(path.join(out, STAMP), stamp);
    swapIn(out);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** Whether dist/ was built from the sources as they are now. */
const upToDate = () => readStamp() === stampOfInputs();

module.exports = { INPUTS, upToDate };

if (require.main === module) {
  build().catch((error) => {
    console.error(`build: ${error.message}`);
    process.exit(1);
  });
}

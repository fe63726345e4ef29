#!/usr/bin/env node
/**
 * `npm run pack [-- --pack-destination <dir>] [--json]`: the two packages of this repository, as
 * tarballs (docs/packages.md):
 *
 *   messaging-api-mock     the mock, its bins, the MSW adapter, fixtures, dashboard (this package.json)
 *   messaging-contract-kit the contract kit and its proxy, built from contract-tests/: its
 *                          package.json is contract-tests/package.template.json with the version of
 *                          this one and its dependencies' versions from package-lock.json
 *
 * Both are built first (scripts/build.js, nothing to do when dist/ is up to date). A package whose
 * code loads a package it does not depend on is refused, so that neither installs short of one.
 * With --json, prints npm pack's record of each tarball as one JSON array.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { builtinModules } = require('node:module');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const KIT_TEMPLATE = path.join(root, 'contract-tests', 'package.template.json');

function option(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status})`);
  return result.stdout;
}

/** Every file under `dir` whose name ends with `extension`. */
function filesUnder(dir, extension) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}

/** The packages the JavaScript under `dir` (but its folders `skip`) loads by name, built-ins left out. */
function packagesLoaded(dir, skip = []) {
  const names = new Set();
  const skipped = (file) =>
    skip.some((folder) => path.relative(path.join(dir, folder), file).split(path.sep)[0] !== '..');
  for (const file of [...filesUnder(dir, '.js'), ...filesUnder(dir, '.mjs')].filter((f) => !skipped(f))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:require\(|import\(|from )["']([^"'./][^"']*)["']/g)) {
      const parts = match[1].split('/');
      const name = match[1].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      if (!builtinModules.includes(name) && !name.startsWith('node:')) names.add(name);
    }
  }
  return [...names].sort();
}

/** Refuses a package whose code loads what its manifest neither depends on nor names as a peer. */
function checkDependencies(manifest, dir, skip, cloneOnly = []) {
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...cloneOnly,
  ]);
  const missing = packagesLoaded(dir, skip).filter((name) => !declared.has(name) && name !== manifest.name);
  if (missing.length > 0)
    throw new Error(
      `${manifest.name} loads ${missing.join(', ')}, which its package.json does not depend on`,
    );
}

/** The kit's package.json: the template, with this package's version and the lock's versions. */
function kitManifest(mock) {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const template = JSON.parse(fs.readFileSync(KIT_TEMPLATE, 'utf8'));
  const versionOf = (name) => {
    const version = lock.packages[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`${name}, a dependency of the kit, is not in package-lock.json`);
    return version;
  };
  return {
    ...template,
    version: mock.version,
    dependencies: Object.fromEntries(Object.keys(template.dependencies).map((n) => [n, versionOf(n)])),
    peerDependencies: { [mock.name]: `^${mock.version}` },
  };
}

function pack(dir, destination) {
  const out = run('npm', ['pack', '--json', '--pack-destination', destination], dir);
  return JSON.parse(out.slice(out.indexOf('[')))[0];
}

function main() {
  const destination = path.resolve(option('--pack-destination') ?? root);
  fs.mkdirSync(destination, { recursive: true });
  const build = spawnSync(process.execPath, [path.join(__dirname, 'build.js')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the build failed');

  const mock = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  // dist/contract-tests/ is the kit's, built here and shipped in its own package.
  checkDependencies(mock, path.join(root, 'dist'), ['contract-tests']);

  // The kit in a folder of its own: its manifest, README, LICENSE, docs/api.md (the rules its
  // verdicts cite), the compiled kit as its dist/ and common/ (the paging it shares with the mock).
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-contract-kit-'));
  try {
    const kit = kitManifest(mock);
    fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(kit, null, 2)}\n`);
    fs.copyFileSync(path.join(root, 'contract-tests', 'README.md'), path.join(stage, 'README.md'));
    fs.copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
    fs.mkdirSync(path.join(stage, 'docs'));
    fs.copyFileSync(path.join(root, 'docs', 'api.md'), path.join(stage, 'docs', 'api.md'));
    fs.cpSync(path.join(root, 'dist', 'contract-tests'), path.join(stage, 'dist'), { recursive: true });
    // common/ beside dist/, as it is beside contract-tests/ in the clone: the kit's paging is there.
    fs.cpSync(path.join(root, 'dist', 'common'), path.join(stage, 'common'), { recursive: true });
    // The server profile's JSON Schema (--profile-out writes what it describes), and its page.
    fs.copyFileSync(
      path.join(root, 'common', 'server-profile.schema.json'),
      path.join(stage, 'common', 'server-profile.schema.json'),
    );
    fs.copyFileSync(path.join(root, 'docs', 'twin.md'), path.join(stage, 'docs', 'twin.md'));
    // rules/readme.ts writes the rule catalogue into docs/contract-kit.md (with prettier): a tool of the clone, not of the kit.
    fs.rmSync(path.join(stage, 'dist', 'rules', 'readme.js'));
    // The bin loads tsx only in a clone, where the kit runs from its TypeScript sources.
    checkDependencies(kit, stage, [], ['tsx']);

    const packed = [pack(root, destination), pack(stage, destination)];
    if (process.argv.includes('--json')) console.log(JSON.stringify(packed, null, 2));
    else
      for (const p of packed)
        console.log(
          `${path.join(destination, p.filename)}: ${p.entryCount} files, ${(p.size / 1024).toFixed(0)} kB`,
        );
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

try {
  main();
} catch (error) {
  console.error(`pack: ${error.message}`);
  process.exit(1);
}

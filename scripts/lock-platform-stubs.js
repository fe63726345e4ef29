#!/usr/bin/env node
/**
 * Keeps `npm ci` working here. The registry this project installs from serves only some platform
 * builds of native packages (jest's resolver unrs-resolver, knip's oxc-parser), so `npm install`
 * leaves the others out of package-lock.json, and `npm ci` then refuses the lock as out of sync
 * ("Missing: @unrs/resolver-binding-…", "Missing: @oxc-parser/binding-…"). This adds an entry for each missing platform build, marked optional
 * with its os/cpu/libc, which npm skips on any other platform without fetching it.
 * Run it after `npm install` changes the lock: `node scripts/lock-platform-stubs.js`.
 */
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const PLATFORMS = {
  'android-arm-eabi': ['android', 'arm'],
  'android-arm64': ['android', 'arm64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'darwin-x64': ['darwin', 'x64'],
  'freebsd-x64': ['freebsd', 'x64'],
  'linux-arm-gnueabihf': ['linux', 'arm', 'glibc'],
  'linux-arm-musleabihf': ['linux', 'arm', 'musl'],
  'linux-arm64-gnu': ['linux', 'arm64', 'glibc'],
  'linux-arm64-musl': ['linux', 'arm64', 'musl'],
  'linux-loong64-gnu': ['linux', 'loong64', 'glibc'],
  'linux-loong64-musl': ['linux', 'loong64', 'musl'],
  'linux-ppc64-gnu': ['linux', 'ppc64', 'glibc'],
  'linux-riscv64-gnu': ['linux', 'riscv64', 'glibc'],
  'linux-riscv64-musl': ['linux', 'riscv64', 'musl'],
  'linux-s390x-gnu': ['linux', 's390x', 'glibc'],
  'linux-x64-gnu': ['linux', 'x64', 'glibc'],
  'linux-x64-musl': ['linux', 'x64', 'musl'],
  'openharmony-arm64': ['openharmony', 'arm64'],
  'win32-arm64-msvc': ['win32', 'arm64'],
  'win32-ia32-msvc': ['win32', 'ia32'],
  'win32-x64-msvc': ['win32', 'x64'],
};
let added = 0;
// Every package whose platform builds are optional dependencies named `…-<platform>`: jest's
// resolver (@unrs/resolver-binding-*) and knip's parser and resolver (@oxc-parser/binding-*,
// @oxc-resolver/binding-*) among them.
const platformOf = (name) => {
  const suffix = Object.keys(PLATFORMS)
    .filter((key) => name.endsWith(`-${key}`) || name.endsWith(`/${key}`))
    .sort((a, b) => b.length - a.length)[0];
  return suffix && PLATFORMS[suffix];
};
for (const [, pkg] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const platform = platformOf(name);
    if (lock.packages[key] || !platform) continue;
    const [os, cpu, libc] = platform;
    lock.packages[key] = {
      version,
      cpu: [cpu],
      dev: true,
      ...(libc ? { libc: [libc] } : {}),
      license: 'MIT',
      optional: true,
      os: [os],
    };
    added++;
  }
}
const [root, ...rest] = Object.entries(lock.packages);
rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
lock.packages = Object.fromEntries([root, ...rest]);
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added === 0 ? 'package-lock.json: nothing to add' : `package-lock.json: added ${added} platform entries`,
);

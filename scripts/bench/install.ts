/**
 * What installing the packages costs a user: the tarballs (`npm run pack`) installed into an
 * empty project with npm, as a user installs them (production dependencies from the registry or
 * npm's cache), then the packages counted and their bytes added up under node_modules/.
 *
 * A package is a folder of node_modules/ (at any depth, scoped or not) with a package.json; the
 * tarball's own package counts. The size is what node_modules/ takes on disk (its files' blocks,
 * as `du` counts them), beside the bytes of the files themselves; MB of 1,000,000 bytes.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

export interface Packed {
  filename: string;
  name: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

/** Both packages' tarballs, written into `destination` by scripts/pack.js (which builds first). */
export function packBoth(destination: string, env: NodeJS.ProcessEnv = process.env): Packed[] {
  const pack = spawnSync(
    process.execPath,
    [path.join(root, 'scripts', 'pack.js'), '--json', '--pack-destination', destination],
    { cwd: root, encoding: 'utf8', env, maxBuffer: 64 * 2 ** 20 },
  );
  if (pack.status !== 0)
    throw new Error(`npm run pack failed (${pack.status}):\n${pack.stdout}\n${pack.stderr}`);
  return JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Packed[];
}

export interface Installed {
  project: string;
  packages: number;
  /** On disk, in the file system's blocks. */
  disk: number;
  /** The files' own bytes. */
  bytes: number;
  /** The packages' names, sorted (a name installed twice, at two versions, is listed twice). */
  names: string[];
  /** What npm printed (stdout and stderr), when it installed them. */
  output?: string;
  ms: number;
}

/** Every package under `modules` (a node_modules folder), nested ones included. */
function packagesUnder(modules: string): { name: string; dir: string }[] {
  const found: { name: string; dir: string }[] = [];
  if (!fs.existsSync(modules)) return found;
  for (const entry of fs.readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dirs = entry.name.startsWith('@')
      ? fs
          .readdirSync(path.join(modules, entry.name), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => ({ name: `${entry.name}/${e.name}`, dir: path.join(modules, entry.name, e.name) }))
      : [{ name: entry.name, dir: path.join(modules, entry.name) }];
    for (const d of dirs) {
      if (!fs.existsSync(path.join(d.dir, 'package.json'))) continue;
      found.push(d, ...packagesUnder(path.join(d.dir, 'node_modules')));
    }
  }
  return found;
}

/** The bytes of every file under `dir`, and the disk they take with the folders; links count as themselves. */
function bytesUnder(dir: string): { bytes: number; disk: number } {
  const total = { bytes: 0, disk: fs.lstatSync(dir).blocks * 512 };
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = bytesUnder(full);
      total.bytes += inner.bytes;
      total.disk += inner.disk;
    } else {
      const stat = fs.lstatSync(full);
      total.bytes += stat.size;
      total.disk += stat.blocks * 512;
    }
  }
  return total;
}

/** What is installed in `project` now. */
export function measure(project: string): Omit<Installed, 'ms'> {
  const modules = path.join(project, 'node_modules');
  const packages = packagesUnder(modules);
  return {
    project,
    packages: packages.length,
    ...(fs.existsSync(modules) ? bytesUnder(modules) : { bytes: 0, disk: 0 }),
    names: packages.map((p) => p.name).sort(),
  };
}

/**
 * An empty project in `parent`/`name`, the tarballs installed into it (npm's own variables of
 * a parent npm run left out, so that npm works on that project and not this clone).
 */
export async function installInto(
  parent: string,
  name: string,
  tarballs: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Installed> {
  const project = path.join(parent, name);
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true }, null, 2)}\n`,
  );
  const started = Date.now();
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
  if (result.code !== 0)
    throw new Error(`npm install ${tarballs.join(' ')} failed (${result.code}):\n${result.output}`);
  return { ...measure(project), ms: Date.now() - started, output: result.output };
}

export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** A folder for the projects, removed by the caller. */
export const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-install-'));

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installInto, mb, packBoth, type Installed, type Packed } from '../../scripts/bench/install';

/**
 * The package as a user gets it: `npm pack` (which builds first), the tarball installed alone into
 * an empty project (its production dependencies from the registry, nothing of this clone), then
 * both bins run against each other through npx, the library loaded from CommonJS and ESM, and the
 * TypeScript examples of docs/mock.md compiled by a strict consumer. Its own jest config and npm script
 * (`npm run test:package`); `npm test` runs it as one of its parts.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const KEEP = process.env.PACKAGE_TEST_KEEP === '1';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * npm's variables of the `npm test` that started us (prefix, package, lifecycle) would point npm
 * at this clone; the user's own settings (registry, cache, proxies) are kept.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const npmOwn =
      /^npm_/i.test(key) &&
      !/^npm_config_(registry|cache|userconfig|.*proxy|strict_ssl|cafile|ca)$/i.test(key);
    if (!npmOwn && key !== 'INIT_CWD' && !key.startsWith('CONTRACT_')) env[key] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

function run(command: string, args: string[], cwd: string, timeoutMs = 120_000): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/**
 * What a process wrote to stderr, without the one warning msw itself makes Node 25 and later print:
 * msw looks for `localStorage` as it loads, and Node warns that it has none without
 * `--localstorage-file` (docs/msw.md, mswjs/msw#2612). Anything else stays.
 */
const besideMsw = (stderr: string) =>
  stderr.replace(
    /^\(node:\d+\) ExperimentalWarning: localStorage is not available because --localstorage-file was not provided\.\n\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n/m,
    '',
  );

/** `npx --no --`: the installed bin or nothing (never a download), with every argument its own. */
const npx = (project: string, args: string[], timeoutMs?: number) =>
  run('npx', ['--no', '--', ...args], project, timeoutMs);

/** A long-running bin (the mock, a rogue server), stopped with its whole process group. */
function serve(project: string, args: string[]): Promise<{ url: string; stop: () => void }> {
  const child = spawn(args[0]!, args.slice(1), {
    cwd: project,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${args.join(' ')} printed no URL within 30 s: ${seen}`));
    }, 30_000);
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, stop });
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${seen}`)));
  });
}

let work: string;
/** Both packages installed, as a user who runs the kit against the mock has them. */
let project: string;
/** The mock alone. */
let light: Installed;
let packed: { mock: Packed; kit: Packed };
const figures: string[] = [];

/** The light install's budget (docs/packages.md): the mock with every part but the kit. */
const LIGHT = { packages: 90, bytes: 25e6 };

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'messaging-api-mock-package-'));
  const started = Date.now();
  const [mock, kit] = packBoth(work, cleanEnv());
  packed = { mock: mock!, kit: kit! };
  figures.push(
    `npm run pack (building first) ${((Date.now() - started) / 1000).toFixed(1)} s: ${[mock!, kit!]
      .map(
        (p) =>
          `${p.name} ${(p.size / 1024).toFixed(0)} kB, ${p.entryCount} files, ${(p.unpackedSize / 1024).toFixed(0)} kB unpacked`,
      )
      .join('; ')}`,
  );
  const tarball = (p: Packed) => path.join(work, p.filename);
  const [both, alone] = await Promise.all([
    installInto(work, 'consumer', [tarball(packed.mock), tarball(packed.kit)], cleanEnv()),
    installInto(work, 'light', [tarball(packed.mock)], cleanEnv()),
  ]);
  project = both.project;
  light = alone;
  npmSaid = [both.output ?? '', alone.output ?? ''];
  for (const [what, i] of [
    ['both packages', both],
    ['messaging-api-mock alone', alone],
  ] as const)
    figures.push(
      `npm install of ${what} into an empty project ${(i.ms / 1000).toFixed(1)} s: ${i.packages} packages, ${mb(i.disk)} on disk`,
    );
}, 900_000);

afterAll(() => {
  console.log(`The package test:\n  ${figures.join('\n  ')}${KEEP ? `\n  kept: ${work}` : ''}`);
  if (work && !KEEP) fs.rmSync(work, { recursive: true, force: true });
});

/** What npm printed installing each project: both packages, the mock alone. */
let npmSaid: string[] = [];

const installed = (pkg: string, ...parts: string[]) => path.join(project, 'node_modules', pkg, ...parts);
const KIT_DEPENDENCIES = ['commander', 'fast-check', 'jest', 'junit-report-builder', 'qs', 'supertest'];

describe('npm run pack: two packages', () => {
  it('install into an empty project with nothing for npm to ask about: no install script, theirs or their dependencies’', () => {
    const [both, mockAlone] = npmSaid;
    const asking = (output: string) =>
      output.split('\n').filter((line) => /install-scripts|allowScripts/.test(line));
    // jest stays at 30.4: jest-haste-map 30.5 depends on @parcel/watcher, whose install script
    // npm would ask every project that installs the kit about (docs/architecture.md).
    expect({ both: asking(both!), mockAlone: asking(mockAlone!) }).toEqual({ both: [], mockAlone: [] });
  });

  it('messaging-api-mock ships the build, the dashboard, the pages of docs/, the fixtures, README, LICENSE and package.json, and nothing else: not the kit', () => {
    const files = packed.mock.files.map((f) => f.path).sort();
    const stray = files.filter(
      (f) =>
        !/^dist\/.+\.(js|d\.ts|mjs|d\.mts)$/.test(f) &&
        ![
          'dist/default-world.json',
          'dashboard/index.html',
          'dashboard/dashboard.js',
          'dashboard/dashboard.css',
          'dashboard/favicon.svg',
          'dashboard/favicon.ico',
          'docs/api.md',
          'docs/architecture.md',
          'docs/contract-kit.md',
          'docs/deploy.md',
          'docs/fixtures.md',
          'docs/mock.md',
          'docs/msw.md',
          'docs/packages.md',
          'docs/performance.md',
          'docs/proxy.md',
          'docs/reliability.md',
          'docs/twin.md',
          'common/server-profile.schema.json',
          'fixtures/demo.json',
          'fixtures/empty.json',
          'README.md',
          'LICENSE',
          'package.json',
        ].includes(f),
    );
    expect(stray).toEqual([]);
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/bin.js',
      'dist/cli/fixtures-cli.js',
      'dist/common/record.js',
      'dist/esm/index.mjs',
      'dist/esm/msw.mjs',
      'dashboard/index.html',
      'docs/api.md',
      'docs/mock.md',
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => f.startsWith('dist/contract-tests/'))).toEqual([]);
  });

  it('messaging-contract-kit holds the compiled kit (every file of contract-tests/ and common/, its tests and its bin), docs/api.md, README, LICENSE', () => {
    const files = new Set(packed.kit.files.map((f) => f.path));
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        // Tools of the clone: the README writer and jest's transform of the TypeScript sources.
        else if (/\.(ts|js)$/.test(entry.name) && !['esbuild-transform.js', 'readme.ts'].includes(entry.name))
          sources.push(file);
      }
    };
    walk(path.join(ROOT, 'contract-tests'));
    const compiled = sources.map(
      (file) =>
        `dist/${path
          .relative(path.join(ROOT, 'contract-tests'), file)
          .split(path.sep)
          .join('/')
          .replace(/\.ts$/, '.js')}`,
    );
    // common/ (the paging it shares with the mock), beside dist/ as it is beside contract-tests/.
    for (const file of fs.readdirSync(path.join(ROOT, 'common')))
      compiled.push(`common/${file.replace(/\.ts$/, '.js')}`);
    expect(compiled.filter((f) => !files.has(f))).toEqual([]);
    expect([...files].filter((f) => !compiled.includes(f)).sort()).toEqual([
      'LICENSE',
      'README.md',
      'docs/api.md',
      'docs/twin.md',
      'package.json',
    ]);
    expect(sources.filter((f) => f.endsWith('.contract.ts')).length).toBeGreaterThanOrEqual(5);
  });

  it("the kit's package.json: this version, its dependencies at the lock's versions, the mock an optional peer", () => {
    const mock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    const kit = JSON.parse(fs.readFileSync(installed('messaging-contract-kit', 'package.json'), 'utf8'));
    expect(kit).toMatchObject({
      name: 'messaging-contract-kit',
      version: mock.version,
      bin: { 'messaging-contract': 'dist/bin/messaging-contract.js' },
      dependencies: Object.fromEntries(
        KIT_DEPENDENCIES.map((name) => [name, lock.packages[`node_modules/${name}`].version]),
      ),
      peerDependencies: { 'messaging-api-mock': `^${mock.version}` },
      peerDependenciesMeta: { 'messaging-api-mock': { optional: true } },
    });
    // What only the kit needs is no dependency of the mock (commander and qs are both's).
    for (const name of ['jest', 'supertest', 'fast-check', 'junit-report-builder'])
      expect([name, mock.dependencies[name]]).toEqual([name, undefined]);
  });
});

describe('the mock installed alone: light', () => {
  it(`brings at most ${LIGHT.packages} packages and ${LIGHT.bytes / 1e6} MB, and no test runner`, () => {
    expect(light.packages).toBeLessThanOrEqual(LIGHT.packages);
    expect(light.disk).toBeLessThanOrEqual(LIGHT.bytes);
    expect(
      light.names.filter((name) => KIT_DEPENDENCIES.includes(name) && name !== 'commander' && name !== 'qs'),
    ).toEqual([]);
    expect(light.names).toEqual(expect.arrayContaining(['messaging-api-mock', 'express', '@faker-js/faker']));
  });

  it('serves its dashboard and its API, and writes fixtures', async () => {
    const mock = await serve(light.project, [
      'npx',
      '--no',
      '--',
      'messaging-mock',
      '--port',
      '0',
      '--quiet',
    ]);
    try {
      const page = await fetch(`${mock.url}/__mock/`);
      expect([page.status, (await page.text()).includes('<html')]).toEqual([200, true]);
      const contacts = await fetch(`${mock.url}/v1/contacts?limit=2`, {
        headers: { Authorization: 'Bearer l' },
      });
      expect(contacts.status).toBe(200);
    } finally {
      mock.stop();
    }
    const out = await npx(light.project, [
      'messaging-fixtures',
      '--contacts',
      '2',
      '--messages',
      '1',
      '--out',
      '-',
    ]);
    expect([out.code, (JSON.parse(out.stdout) as { messages: unknown[] }).messages.length]).toEqual([0, 1]);
  }, 120_000);

  it('has no messaging-contract bin: the kit is a package of its own', async () => {
    expect(fs.existsSync(path.join(light.project, 'node_modules', '.bin', 'messaging-contract'))).toBe(false);
    expect(fs.existsSync(installed('messaging-api-mock', 'dist', 'contract-tests'))).toBe(false);
  });

  it('messaging-fixtures --from records an account with nothing else installed', async () => {
    // The walker is common/'s, on fetch: no kit, no test runner.
    const mock = await serve(light.project, [
      'npx',
      '--no',
      '--',
      'messaging-mock',
      '--port',
      '0',
      '--quiet',
    ]);
    try {
      const out = await npx(light.project, [
        'messaging-fixtures',
        '--from',
        mock.url,
        '--token',
        'record',
        '--out',
        '-',
      ]);
      expect([out.code, out.stderr]).toEqual([0, expect.stringContaining('recorded ')]);
      const recorded = JSON.parse(out.stdout) as { contacts: unknown[]; messages: unknown[] };
      expect([recorded.contacts.length, recorded.messages.length]).toEqual([25, 300]);
    } finally {
      mock.stop();
    }
  }, 120_000);
});

describe('both packages installed into an empty project', () => {
  it('bring their run-time dependencies and none of the development tools', () => {
    const has = (name: string) => fs.existsSync(path.join(project, 'node_modules', name, 'package.json'));
    expect(['jest', 'supertest', 'express', 'commander'].filter((name) => !has(name))).toEqual([]);
    expect(['typescript', 'tsx', 'esbuild', 'ts-jest', 'prettier', 'playwright-core'].filter(has)).toEqual(
      [],
    );
  });

  it('npx messaging-mock --help lists every option, as the clone does', async () => {
    const help = await npx(project, ['messaging-mock', '--help']);
    expect(help.code).toBe(0);
    const inClone = await run(process.execPath, [path.join(ROOT, 'dist', 'cli', 'bin.js'), '--help'], ROOT);
    expect(help.stdout).toBe(inClone.stdout);
    for (const option of ['--port', '--host', '--seed', '--fixtures', '--token', '--latency', '--simulate'])
      expect(help.stdout).toContain(option);
  });

  it('npx messaging-fixtures writes a world', async () => {
    const out = await npx(project, [
      'messaging-fixtures',
      '--seed',
      '5',
      '--contacts',
      '2',
      '--messages',
      '3',
      '--out',
      '-',
    ]);
    expect(out.code).toBe(0);
    const world = JSON.parse(out.stdout) as { contacts: unknown[]; messages: unknown[] };
    expect([world.contacts.length, world.messages.length]).toEqual([2, 3]);
  });

  describe('npx messaging-mock serving, npx messaging-contract judging it', () => {
    let mock: { url: string; stop: () => void };
    beforeAll(async () => {
      mock = await serve(project, [
        'npx',
        '--no',
        '--',
        'messaging-mock',
        '--port',
        '0',
        '--quiet',
        '--fixtures',
        'node_modules/messaging-api-mock/fixtures/demo.json',
      ]);
    }, 60_000);
    afterAll(() => mock?.stop());

    it.each(['documented', 'mock'])(
      'passes in the %s rule set, with the JUnit, Markdown and JSON reports citing docs/api.md',
      async (ruleSet) => {
        const reports = path.join(project, 'reports', ruleSet);
        const kit = await npx(
          project,
          [
            'messaging-contract',
            '--base-url',
            mock.url,
            '--token',
            `package-${ruleSet}`,
            '--rule-set',
            ruleSet,
            '--junit',
            `${reports}/contract.xml`,
            '--report',
            `${reports}/contract.md`,
            '--json',
            `${reports}/contract.json`,
          ],
          180_000,
        );
        figures.push(
          `the installed kit, ${ruleSet} rule set, against the installed mock: ${(kit.ms / 1000).toFixed(1)} s`,
        );
        expect({ code: kit.code, stderr: kit.stderr.replace(/npm warn [^\n]*\n/g, '') }).toEqual({
          code: 0,
          stderr: '',
        });
        expect(kit.stdout).toMatch(
          /\d+ passed, 0 failed, 0 not run in [\d.]+ s: the server conforms \(exit 0\)\n$/,
        );
        const doc = installed('messaging-contract-kit', 'docs', 'api.md');
        expect(fs.existsSync(doc)).toBe(true);
        expect(kit.stdout).toContain(`Sections (§) are those of docs/api.md of messaging-contract-kit`);
        expect(kit.stdout).toContain(doc);
        const json = JSON.parse(fs.readFileSync(`${reports}/contract.json`, 'utf8')) as {
          exitCode: number;
          reference: { path: string };
          verdicts: { verdict: string; reference: string }[];
        };
        expect(json.exitCode).toBe(0);
        expect(json.reference.path).toBe(doc);
        expect(json.verdicts.length).toBeGreaterThan(30);
        expect(json.verdicts.filter((v) => v.verdict !== 'pass')).toEqual([]);
        expect(json.verdicts.every((v) => v.reference.startsWith('docs/api.md §'))).toBe(true);
        expect(fs.readFileSync(`${reports}/contract.xml`, 'utf8')).toContain(
          `<property name="reference" value="docs/api.md`,
        );
        expect(fs.readFileSync(`${reports}/contract.md`, 'utf8')).toContain(`](file://${doc})`);
      },
      200_000,
    );

    it('npx messaging-fixtures --from records the installed mock', async () => {
      const out = await npx(project, [
        'messaging-fixtures',
        '--from',
        mock.url,
        '--token',
        'record',
        '--out',
        '-',
      ]);
      expect(out.code).toBe(0);
      const demo = JSON.parse(
        fs.readFileSync(installed('messaging-api-mock', 'fixtures', 'demo.json'), 'utf8'),
      );
      const recorded = JSON.parse(out.stdout) as { contacts: unknown[]; messages: unknown[] };
      expect([recorded.contacts.length, recorded.messages.length]).toEqual([
        demo.contacts.length,
        demo.messages.length,
      ]);
    }, 120_000);

    it('npx messaging-contract proxy passes the installed mock on, answer for answer', async () => {
      const proxy = await serve(project, [
        'npx',
        '--no',
        '--',
        'messaging-contract',
        'proxy',
        '--target',
        mock.url,
        '--port',
        '0',
      ]);
      try {
        const headers = { Authorization: 'Bearer package-proxy' };
        const [direct, through] = await Promise.all(
          [mock.url, proxy.url].map(async (base) =>
            (await fetch(`${base}/v1/contacts?limit=3`, { headers })).text(),
          ),
        );
        expect(JSON.parse(through)).toMatchObject({ has_more: true });
        expect(through).toBe(direct);
      } finally {
        proxy.stop();
      }
    }, 60_000);

    it('exits 1 when a rule fails: a server built on the installed library that breaks one rule', async () => {
      // ESM, importing the package by name: the library as a user embeds it.
      fs.writeFileSync(
        path.join(project, 'rogue.mjs'),
        `import http from 'node:http';
import { createMockServer } from 'messaging-api-mock';
const inner = createMockServer({ seed: 3 });
const base = await inner.start();
// Answers a created contact as already active: against rule 4.1 rule 5, last_active_at null.
http
  .createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers['content-length'];
    const answer = await fetch(base + req.url, {
      method: req.method,
      headers,
      body: ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks),
    });
    let text = await answer.text();
    if (req.method === 'POST' && req.url.split('?')[0] === '/v1/contacts' && answer.status === 201) {
      text = JSON.stringify({ ...JSON.parse(text), last_active_at: 1700000000 });
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    res.end(text);
  })
  .listen(0, '127.0.0.1', function () {
    console.log('rogue listening on http://127.0.0.1:' + this.address().port);
  });
`,
      );
      const rogue = await serve(project, [process.execPath, 'rogue.mjs']);
      try {
        const kit = await npx(project, [
          'messaging-contract',
          '--base-url',
          rogue.url,
          '--token',
          'rogue',
          '--rule',
          'contacts.create.last-active-at-null',
          'contacts.create',
        ]);
        expect(kit.code).toBe(1);
        expect(kit.stdout).toMatch(/^FAIL +contacts\.create\.last-active-at-null +\(§2\.1, 4\.1 rule 5\)$/m);
        expect(kit.stdout).toMatch(/^PASS +contacts\.create +\(§4\.1\)$/m);
      } finally {
        rogue.stop();
      }
    }, 120_000);

    it('exits 2 when it cannot judge: no server there, or no test runner it can load', async () => {
      const nowhere = await npx(project, [
        'messaging-contract',
        '--base-url',
        'http://127.0.0.1:9',
        '--token',
        'x',
      ]);
      expect(nowhere.code).toBe(2);
      expect(nowhere.stdout).toMatch(/the server could not be reached/);
      const jest = path.join(project, 'node_modules', 'jest');
      fs.renameSync(jest, `${jest}.hidden`);
      try {
        const broken = await npx(project, [
          'messaging-contract',
          '--base-url',
          mock.url,
          '--token',
          'no-jest',
        ]);
        expect(broken.code).toBe(2);
        expect(broken.stdout).toContain('the kit could not start its test runner (jest)');
      } finally {
        fs.renameSync(`${jest}.hidden`, jest);
      }
    }, 120_000);
  });

  it('loads with require (CommonJS) and with import (ESM)', async () => {
    const body = (load: string) => `${load}
const mock = createMockServer({ seed: 7, contacts: 4, messages: 0 });
const url = await mock.start();
const page = await (await fetch(url + '/v1/contacts?limit=100', { headers: { Authorization: 'Bearer t' } })).json();
console.log(page.data.length + ' contacts');
await mock.stop();`;
    fs.writeFileSync(
      path.join(project, 'load.cjs'),
      `(async () => {\n${body("const { createMockServer } = require('messaging-api-mock');")}\n})();\n`,
    );
    fs.writeFileSync(
      path.join(project, 'load.mjs'),
      `${body("import { createMockServer } from 'messaging-api-mock';")}\n`,
    );
    const [cjs, esm] = await Promise.all([
      run(process.execPath, ['load.cjs'], project),
      run(process.execPath, ['load.mjs'], project),
    ]);
    expect([cjs.code, cjs.stdout, cjs.stderr]).toEqual([0, '4 contacts\n', '']);
    expect([esm.code, esm.stdout, esm.stderr]).toEqual([0, '4 contacts\n', '']);
  }, 60_000);

  it('serves the API inside MSW with messaging-api-mock/msw, once msw (an optional peer) is installed, from require and import', async () => {
    const msw = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).devDependencies
      .msw as string;
    const install = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', `msw@${msw}`],
      project,
      300_000,
    );
    expect(install.code).toBe(0);
    const body = (load: string) => `${load}
const handlers = createHandlers({ baseUrl: 'https://api.example.test', seed: 7, contacts: 4, messages: 0 });
const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: 'error' });
const page = await (await fetch('https://api.example.test/v1/contacts?limit=100', { headers: { Authorization: 'Bearer t' } })).json();
// The default world (shipped as data) and a generated one (seed 7), the same from either build.
const shipped = createHandlers({ baseUrl: 'https://default.example.test' });
server.use(...shipped);
const fallback = await (await fetch('https://default.example.test/v1/messages?limit=100', { headers: { Authorization: 'Bearer t' } })).text();
console.log(page.data.length + ' contacts ' + JSON.stringify(page).length + ' ' + fallback.length + ' ' + page.data.map((c) => c.id).join(',') + ' ' + fallback.slice(-200));
server.close();`;
    fs.writeFileSync(
      path.join(project, 'msw.cjs'),
      `(async () => {\n${body("const { createHandlers } = require('messaging-api-mock/msw');\nconst { setupServer } = require('msw/node');")}\n})();\n`,
    );
    fs.writeFileSync(
      path.join(project, 'msw.mjs'),
      `${body("import { createHandlers } from 'messaging-api-mock/msw';\nimport { setupServer } from 'msw/node';")}\n`,
    );
    const [cjs, esm] = await Promise.all([
      run(process.execPath, ['msw.cjs'], project),
      run(process.execPath, ['msw.mjs'], project),
    ]);
    expect([cjs.code, besideMsw(cjs.stderr), esm.code, besideMsw(esm.stderr)]).toEqual([0, '', 0, '']);
    expect(cjs.stdout).toMatch(/^4 contacts \d+ \d+ /);
    // import takes the ES modules (dist/esm/), require the CommonJS build: the same worlds.
    expect(esm.stdout).toBe(cjs.stdout);
  }, 360_000);

  it('compiles the TypeScript examples of docs/mock.md with tsc --strict and no skipLibCheck, as ESM and as CommonJS', async () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs', 'mock.md'), 'utf8');
    const example = (heading: string) => {
      const at = page.indexOf(`### ${heading}`);
      expect(at).toBeGreaterThan(-1);
      return /```ts\n([\s\S]*?)```/.exec(page.slice(at))![1]!;
    };
    const source = [
      example('Typed client use'),
      // The embedding example runs inside a test runner: its hooks, declared.
      'declare function beforeAll(fn: () => unknown): void;',
      'declare function beforeEach(fn: () => unknown): void;',
      'declare function afterAll(fn: () => unknown): void;',
      example('Embedding in a test suite').replace(
        /^import \{ createMockServer \} from 'messaging-api-mock';$/m,
        '',
      ),
      "import { createApp, createMockServer } from 'messaging-api-mock';",
      // createApp() is the Express app, typed, not `any`.
      'type IsAny<T> = 0 extends 1 & T ? true : false;',
      'export const typed: IsAny<ReturnType<typeof createApp>> = false;',
      'export { listContacts };',
    ].join('\n');
    const compile = async (kind: 'esm' | 'cjs') => {
      const dir = path.join(project, `ts-${kind}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'consumer.ts'), source);
      fs.writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ type: kind === 'esm' ? 'module' : 'commonjs' }),
      );
      const compilerOptions =
        kind === 'esm'
          ? { module: 'nodenext', moduleResolution: 'nodenext' }
          : { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true };
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            target: 'es2022',
            noEmit: true,
            skipLibCheck: false,
            ...compilerOptions,
          },
          files: ['consumer.ts'],
        }),
      );
      // Two compilations of Express's and MSW's types at once: minutes on a busy 2-core machine.
      return run(process.execPath, [TSC, '-p', dir], dir, 290_000);
    };
    const [esm, cjs] = await Promise.all([compile('esm'), compile('cjs')]);
    expect([esm.code, esm.stdout]).toEqual([0, '']);
    expect([cjs.code, cjs.stdout]).toEqual([0, '']);
  }, 300_000);
});

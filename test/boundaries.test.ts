import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The repository's three parts read the API document apart and meet only where they must: the
 * contract kit (contract-tests/) never imports the mock (src/), the mock never imports the kit,
 * and common/ (the account walker and its paging, compiled into both packages) imports neither,
 * nor any package: it sends with Node's fetch, so that the mock records with no test runner.
 */
const ROOT = path.resolve(__dirname, '..');

/** The import and require targets of every .ts and .js file under `dir`. */
function imports(dir: string): { file: string; target: string }[] {
  const found: { file: string; target: string }[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ts|js)$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:\bfrom\s+|\brequire\(\s*|\bimport\(\s*)['"]([^'"]+)['"]/g))
      found.push({ file, target: match[1]! });
  }
  return found;
}

/** Files of `dir` whose imports reach into one of `forbidden` (top-level folders), or into any package when `packages` is false. */
function crossings(dir: string, forbidden: string[], packages = true): string[] {
  const root = path.dirname(dir);
  return imports(dir)
    .filter(({ file, target }) => {
      if (target.startsWith('.')) {
        const top = path.relative(root, path.resolve(path.dirname(file), target)).split(path.sep)[0]!;
        return forbidden.includes(top);
      }
      return !packages && !target.startsWith('node:');
    })
    .map(({ file, target }) => `${path.relative(root, file)} → ${target}`);
}

it('the kit never imports the mock', () => {
  expect(crossings(path.join(ROOT, 'contract-tests'), ['src'])).toEqual([]);
});

it('the mock never imports the kit', () => {
  expect(crossings(path.join(ROOT, 'src'), ['contract-tests'])).toEqual([]);
});

it('common/ imports neither, and no package but Node’s own', () => {
  expect(crossings(path.join(ROOT, 'common'), ['src', 'contract-tests'], false)).toEqual([]);
});

it('finds each kind of crossing', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'boundaries-'));
  try {
    fs.mkdirSync(path.join(root, 'common', 'lib'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'common', 'lib', 'a.ts'),
      [
        "import { x } from '../../src/core';",
        "const y = require('../../contract-tests/http/http');",
        "import request from 'supertest';",
        "import http from 'node:http';",
        "import { z } from '../b';",
      ].join('\n'),
    );
    expect(crossings(path.join(root, 'common'), ['src', 'contract-tests'], false).sort()).toEqual([
      'common/lib/a.ts → ../../contract-tests/http/http',
      'common/lib/a.ts → ../../src/core',
      'common/lib/a.ts → supertest',
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

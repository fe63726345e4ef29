import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The paths the code's comments name are the repository's paths of today: a comment that sends a
 * reader to a file that moved or is gone misleads whoever carries the code on. Every path with a
 * folder in it, named in a comment of the code (src, contract-tests, common, scripts, test), is
 * found from the repository's root, from the file's own folder, or from one of the packages'
 * roots (src/, contract-tests/, common/); a built file (`dist/…js`) by its source.
 */
const ROOT = path.join(__dirname, '..');
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)));
const CODE = tracked.filter(
  (file) => /^(src|contract-tests|common|scripts|test)\//.test(file) && /\.(ts|js|mjs|cjs)$/.test(file),
);
const BASES = ['', 'src', 'contract-tests', 'common'];
const PATH =
  /(?<![\w@:./-])((?:\.{1,2}\/)*(?:[\w-]+\/)+[\w.-]+\.(?:ts|js|mjs|cjs|json|md|html|css))(?![\w/(-])/g;

function exists(named: string, from: string): boolean {
  const built = /^dist\/(.+)\.js$/.exec(named);
  const candidates = built
    ? [`src/${built[1]}.ts`, `${built[1]}.ts`, `${built[1]}.js`]
    : [path.join(path.dirname(from), named), ...BASES.map((base) => path.join(base, named))];
  return candidates.some((candidate) => fs.existsSync(path.join(ROOT, candidate)));
}

function commentsOf(text: string): string[] {
  return text.match(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/.*$/gm) ?? [];
}

it('names, in the comments of the code, only paths that exist', () => {
  const missing: string[] = [];
  for (const file of CODE)
    for (const comment of commentsOf(fs.readFileSync(path.join(ROOT, file), 'utf8')))
      for (const [, named] of comment.matchAll(PATH))
        if (!named!.startsWith('node_modules/') && !exists(named!, file)) missing.push(`${file}: ${named}`);
  expect(missing).toEqual([]);
});

it('would see a path that does not exist: the check is not blind', () => {
  expect(
    // Made of two halves, so that this file's own text holds no comment that names them.
    commentsOf(
      [
        '/',
        '** See src/store/views.ts and src/store/gone.ts. *',
        '/ const x = 1; /',
        '/ and ./dispatch.ts',
      ].join(''),
    ),
  ).toHaveLength(2);
  expect(exists('src/store/views.ts', 'test/x.ts')).toBe(true);
  expect(exists('store/views.ts', 'test/x.ts')).toBe(true);
  expect(exists('./dispatch.ts', 'src/core/api.ts')).toBe(true);
  expect(exists('dist/cli/bin.js', 'scripts/x.ts')).toBe(true);
  expect(exists('src/store/gone.ts', 'test/x.ts')).toBe(false);
  expect(exists('./gone.ts', 'src/core/api.ts')).toBe(false);
  expect([...'a path core/body2.ts in words'.matchAll(PATH)].map((m) => m[1])).toEqual(['core/body2.ts']);
});

it('points nowhere outside the repository: not at the workspace the project was planned in', () => {
  const outside = ['api-' + 'conventions.md', 'messaging-' + 'api.md', '../' + 'shared/'];
  const pointing = tracked.filter((file) => {
    if (!/\.(ts|js|mjs|cjs|md|json|html|yml|yaml|sh)$/.test(file) && !file.startsWith('.ci/')) return false;
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    return outside.some((name) => text.includes(name));
  });
  expect(pointing).toEqual([]);
});

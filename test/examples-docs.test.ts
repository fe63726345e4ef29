import fs from 'node:fs';
import path from 'node:path';

/**
 * The README and docs/ show whole files of examples/ (which CI runs), each after a marker
 * `<!-- copy of examples/… -->`: each copy must be the file as it is, so that what a reader
 * copies is what runs.
 */
const ROOT = path.resolve(__dirname, '..');
const COPY = /<!-- copy of (examples\/[^ ]+) -->\n\n```\w*\n([\s\S]*?)```\n/g;

function copies(text: string): { file: string; shown: string }[] {
  return [...text.matchAll(COPY)].map((m) => ({ file: m[1]!, shown: m[2]! }));
}

const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

it.each(pages)('%s shows the example files as they are', (page) => {
  const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
  const found = copies(text);
  // Every marker is followed by a whole block the pattern reads.
  expect(found.length).toBe(text.split('<!-- copy of ').length - 1);
  for (const { file, shown } of found)
    expect([file, shown]).toEqual([file, fs.readFileSync(path.join(ROOT, file), 'utf8')]);
});

it('docs/msw.md shows the app, its tests and its stories', () => {
  const shown = (page: string) => copies(fs.readFileSync(path.join(ROOT, page), 'utf8')).map((c) => c.file);
  expect(shown('docs/msw.md')).toEqual(
    expect.arrayContaining([
      'examples/vite-app/src/main.ts',
      'examples/vite-app/test/api.test.ts',
      'examples/vite-app/e2e/app.spec.ts',
      'examples/vite-app/src/Contacts.stories.ts',
    ]),
  );
});

it('finds a copy that differs from its file', () => {
  const page = '<!-- copy of examples/vite-app/src/main.ts -->\n\n```ts\nan old version\n```\n';
  const [copy] = copies(page);
  expect(copy!.shown).not.toBe(fs.readFileSync(path.join(ROOT, copy!.file), 'utf8'));
});

import fs from 'node:fs';
import path from 'node:path';

/**
 * The README is read in five minutes and sends the reader on to docs/: every relative link of the
 * README, of the kit's README and of each page of docs/ must point to a file or folder that exists,
 * and every `#anchor` to a heading of its page (GitHub's anchors), or the reader lands nowhere.
 */
const ROOT = path.resolve(__dirname, '..');
const PAGES = [
  'README.md',
  'contract-tests/README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The lines of a page outside its fenced code blocks (those inside are left empty, keeping line numbers). */
function prose(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (opening) {
      if (fence === null) fence = opening[1]!;
      else if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = null;
      return '';
    }
    return fence === null ? line : '';
  });
}

/** GitHub's anchor of a heading: its text lower-cased, punctuation but `-` and `_` removed, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, a repeated one with `-1`, `-2`… as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The relative links of a page (web and mail addresses left out), outside code. */
function links(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  prose(markdown).forEach((text, i) => {
    const withoutCode = text.replace(/(`+)[\s\S]*?\1/g, 'code');
    for (const m of withoutCode.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+["'][^"']*["'])?\s*\)/g)) {
      const target = m[1]!;
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      found.push({ line: i + 1, target });
    }
  });
  return found;
}

/**
 * Every broken link of a page, as `page:line: target (why)`. `read` gives a page's text, `exists`
 * says whether a path is there (both relative to the root), so that the check runs on made-up pages too.
 */
function brokenLinks(
  page: string,
  read: (file: string) => string,
  exists: (file: string) => boolean,
): string[] {
  const broken: string[] = [];
  for (const { line, target } of links(read(page))) {
    const hash = target.indexOf('#');
    const file = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const resolved =
      file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(file)));
    const where = `${page}:${line}: ${target}`;
    if (resolved.startsWith('../') || !exists(resolved)) {
      broken.push(`${where} (no such file or folder: ${resolved})`);
      continue;
    }
    if (anchor !== null && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor))
      broken.push(`${where} (no heading of ${resolved} has the anchor #${anchor})`);
  }
  return broken;
}

const fromDisk = {
  read: (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8'),
  exists: (file: string) => fs.existsSync(path.join(ROOT, file)),
};

describe('the links of the README and of docs/', () => {
  it.each(PAGES)('%s links only to files, folders and headings that exist', (page) => {
    expect(brokenLinks(page, fromDisk.read, fromDisk.exists)).toEqual([]);
  });

  it('the README is read in five minutes: at most 300 lines, starting with the two commands', () => {
    const readme = fromDisk.read('README.md');
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(300);
    expect(readme.split('\n').slice(0, 6)).toEqual([
      '# Messaging API mock and contract kit',
      '',
      '```sh',
      'npm install && npm start     # builds, then serves the mock on http://127.0.0.1:4010',
      'npm test                     # type-checks, builds and runs every test (needs nothing but npm install)',
      '```',
    ]);
  });

  it("the mock's package ships every page of docs/ that the README links to", () => {
    const manifest = JSON.parse(fromDisk.read('package.json')) as { files: string[] };
    const linked = links(fromDisk.read('README.md'))
      .map(({ target }) => target.split('#')[0]!)
      .filter((target) => /^docs\/[^/]+\.md$/.test(target));
    expect(linked.length).toBeGreaterThan(5);
    expect([...new Set(linked)].filter((page) => !manifest.files.includes(page))).toEqual([]);
  });
});

describe('the check itself', () => {
  const pages: Record<string, string> = {
    'README.md': [
      '# Title',
      '',
      'See [the guide](docs/guide.md#getting-started), [its second part](docs/guide.md#usage-1),',
      '[a page that is not there](docs/gone.md), [a heading that is not there](docs/guide.md#nowhere),',
      '[this page](#title), [a folder](docs), [the web](https://example.com/x.md#y) and `[code](nowhere.md)`.',
      '',
      '```md',
      '[in a code block](nowhere-either.md)',
      '```',
    ].join('\n'),
    'docs/guide.md': [
      '# Getting started',
      '',
      '## Usage',
      '',
      '## Usage',
      '',
      '## Switches: `/__mock/switches` (and `Prefer`)',
      '',
      'Back to [the README](../README.md#title) and [a switch](#switches-__mockswitches-and-prefer).',
      'Out of the repository: [no](../../elsewhere.md).',
    ].join('\n'),
  };
  const read = (file: string) => pages[file]!;
  const exists = (file: string) => file in pages || file === 'docs';

  it('reports a link to a file that does not exist, and an anchor no heading has', () => {
    expect(brokenLinks('README.md', read, exists)).toEqual([
      'README.md:4: docs/gone.md (no such file or folder: docs/gone.md)',
      'README.md:4: docs/guide.md#nowhere (no heading of docs/guide.md has the anchor #nowhere)',
    ]);
    expect(brokenLinks('docs/guide.md', read, exists)).toEqual([
      'docs/guide.md:10: ../../elsewhere.md (no such file or folder: ../elsewhere.md)',
    ]);
  });

  it("numbers repeated headings as GitHub does, and drops their punctuation and code's backticks", () => {
    expect([...anchors(pages['docs/guide.md']!)]).toEqual([
      'getting-started',
      'usage',
      'usage-1',
      'switches-__mockswitches-and-prefer',
    ]);
  });
});

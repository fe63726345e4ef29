import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the rules that the kit's verdicts cite are written: docs/api.md of the messaging-api-mock
 * package, which ships with the kit (sections 1-9: the documented rules; C1-C20: the mock's
 * conventions). Every report names it from here, so that a section number such as "4.1 rule 7"
 * can be looked up, in a clone and in an installed package alike.
 */
const PACKAGE = 'messaging-api-mock';
const DOCUMENT = 'docs/api.md';

/** The package's root: the nearest folder above this file whose package.json is this package's. */
function packageRoot(): { root: string; version: string } {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === PACKAGE) return { root: dir, version: manifest.version ?? '' };
    } catch {
      // no package.json here: look further up
    }
    if (path.dirname(dir) === dir) return { root: path.resolve(__dirname, '..', '..'), version: '' };
  }
}

const { root, version } = packageRoot();

export const REFERENCE = {
  /** The file, as a path inside the package. */
  document: DOCUMENT,
  package: PACKAGE,
  version,
  /** Where the file is on this machine. */
  path: path.join(root, ...DOCUMENT.split('/')),
  /** How a report names it. */
  title: `${DOCUMENT} of ${PACKAGE}${version ? ` ${version}` : ''}`,
} as const;

/** A rule's source as a report cites it: `docs/api.md §4.1 rule 7`. */
export function citation(section: string): string {
  return `${DOCUMENT} §${section}`;
}

import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the rules that the kit's verdicts cite are written: docs/api.md, which ships with the kit
 * (sections 1-9: the documented rules; C1-C20: the mock's conventions): in a clone, that of the
 * repository (messaging-api-mock); installed, that of the package messaging-contract-kit. Every
 * report names it from here, so that a section number such as "4.1 rule 7" can be looked up, in
 * a clone and in an installed package alike.
 */
const PACKAGES = ['messaging-contract-kit', 'messaging-api-mock'];
const DOCUMENT = 'docs/api.md';

/** The package's root: the nearest folder above this file whose package.json is the kit's or the repository's. */
function packageRoot(): { root: string; name: string; version: string } {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name !== undefined && PACKAGES.includes(manifest.name))
        return { root: dir, name: manifest.name, version: manifest.version ?? '' };
    } catch {
      // no package.json here: look further up
    }
    if (path.dirname(dir) === dir)
      return { root: path.resolve(__dirname, '..', '..'), name: PACKAGES[1]!, version: '' };
  }
}

const { root, name, version } = packageRoot();

export const REFERENCE = {
  /** The file, as a path inside the package. */
  document: DOCUMENT,
  package: name,
  version,
  /** Where the file is on this machine. */
  path: path.join(root, ...DOCUMENT.split('/')),
  /** How a report names it. */
  title: `${DOCUMENT} of ${name}${version ? ` ${version}` : ''}`,
} as const;

/** A rule's source as a report cites it: `docs/api.md §4.1 rule 7`. */
export function citation(section: string): string {
  return `${DOCUMENT} §${section}`;
}

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FixtureError, validateFixture } from './fixtures';
import type { WorldData } from './store/world';

/** Reads and checks a fixture file; the error names the file, the record and the field. */
export function loadFixtureFile(file: string): WorldData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // A file that is not there is not a bad fixture: say which, and where it was looked for.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${file}: there is no such file (looked for ${resolve(file)}).`);
    if (code === 'EISDIR') throw new Error(`${file}: is a folder; give the path of a fixture file (JSON).`);
    throw new Error(`${file}: cannot be read (${code ?? 'error'}).`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: is not valid JSON (${(error as Error).message}).`);
  }
  try {
    return validateFixture(doc);
  } catch (error) {
    if (error instanceof FixtureError)
      throw new Error(`${file}: is not a valid fixture: ${error.path}: ${error.message}`);
    throw error;
  }
}

import { FixtureChecker, FixtureJsonWriter } from '../fixtures';
import { Anonymizer, Originals } from './anonymize';
import type { Conversion } from './convert';

/**
 * The fixture of a converted recording, as text handed to `write` a record at a time: anonymized
 * when asked, every record checked as `--fixtures` checks a file (a FixtureError names the first
 * record and field that fails), in the bytes of fixtureJson. What it holds meanwhile is the
 * checker's ids and, to anonymize, the anonymizer's table of originals and their fakes.
 */
export async function writeFixture(
  conversion: Conversion,
  options: { anonymize: boolean; seed: number },
  write: (text: string) => void,
): Promise<void> {
  let anonymizer: Anonymizer | undefined;
  if (options.anonymize) {
    // No fake may be an original: every one is known before the first fake is drawn.
    const originals = new Originals();
    await conversion.records(
      { contact: (contact) => originals.add(contact), message: (message) => originals.add(message) },
      'walked',
    );
    anonymizer = new Anonymizer(options.seed, originals);
  }
  const check = new FixtureChecker();
  const json = new FixtureJsonWriter(write);
  await conversion.records({
    contact: (contact) => json.contact(check.contact(anonymizer ? anonymizer.contact(contact) : contact)),
    message: (message) => json.message(check.message(anonymizer ? anonymizer.message(message) : message)),
  });
  json.end();
}

/**
 * What is sent comes back. A server may refuse a value (a limit, a format it does not take) but
 * may not change one it took, except in ways that lose nothing: Unicode NFC normalization and
 * whitespace trimmed at both ends of any text, and, in a phone number, spaces, dashes, dots and
 * parentheses removed (every digit and the `+` kept). Those are reported as the server's choice;
 * anything else (a changed case, a cut, escaped or dropped characters, a replaced value) is lost.
 */
export type SentKind = 'text' | 'phone';
export type Kept = 'same' | 'lossless' | 'lost';

const text = (value: string) => value.normalize('NFC').trim();
const phone = (value: string) => text(value).replace(/[\s().-]/g, '');

export function kept(sent: string, shown: unknown, kind: SentKind): Kept {
  if (shown === sent) return 'same';
  if (typeof shown !== 'string') return 'lost';
  const canonical = kind === 'phone' ? phone : text;
  return canonical(shown) === canonical(sent) ? 'lossless' : 'lost';
}

/** How a lossless change looks, for the server profile. */
export function describeChange(sent: string, shown: string, kind: SentKind): string {
  if (kind === 'phone' && shown === phone(sent)) return 'phone numbers kept as + and digits only';
  if (shown === text(sent))
    return sent.normalize('NFC') === sent ? 'whitespace trimmed at both ends' : 'Unicode NFC and trimmed';
  if (shown === sent.normalize('NFC')) return 'Unicode NFC normalization';
  return 'a lossless normalization';
}
